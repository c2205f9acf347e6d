import { ProcessCompletionNotificationDto, ProcessLifecycleRecordDto } from 'nestjs-process-notifications';
import { createHttpTestApp, type HttpTestApp } from './support/http-test-app.js';

// The error table of the contract (section 8) plus the server's own codes (README).
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  invalid_json: 400,
  invalid_field: 400,
  invalid_request_target: 400,
  unauthorized: 401,
  forbidden: 403,
  owner_mismatch: 403,
  session_not_found: 404,
  loop_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_engine: 409,
  already_exists: 409,
  loop_limit_reached: 409,
  session_closed: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_collision: 422,
  stream_limit_reached: 429,
  internal_error: 500,
  delivery_stopped: 503,
  journal_unavailable: 503,
  owner_unavailable: 503,
};

// The routes of the section 8 table, in OpenAPI path syntax.
const ROUTES = [
  'post /v1/sessions',
  'post /v1/sessions/{sid}/token',
  'post /v1/sessions/{sid}/close',
  'get /v1/sessions/{sid}',
  'post /v1/sessions/{sid}/loops',
  'get /v1/sessions/{sid}/loops/{lid}',
  'post /v1/sessions/{sid}/loops/{lid}/stop',
  'post /v1/sessions/{sid}/process-completions',
  'post /v1/sessions/{sid}/process-completions/batch',
  'post /v1/sessions/{sid}/process-lifecycle',
  'get /v1/sessions/{sid}/loops/{lid}/process-notifications',
  'post /v1/sessions/{sid}/loops/{lid}/process-notifications/{command_id}/consume',
  'post /v1/sessions/{sid}/loops/{lid}/process-notifications/consume',
  'get /v1/sessions/{sid}/journal',
  'get /v1/sessions/{sid}/events',
  'get /v1/sessions/{sid}/loops/{lid}/events',
  'get /healthz',
];

// The admin read API of section 12.1.
const ADMIN_ROUTES = [
  'get /v1/admin/sessions',
  'get /v1/admin/loops',
  'get /v1/admin/notifications/{command_id}',
  'get /v1/admin/nodes',
  'get /v1/admin/refusals',
  'get /v1/whoami',
];

interface MediaType {
  schema?: { $ref?: string; type?: string };
  example?: Record<string, unknown>;
  examples?: Record<string, { value: Record<string, unknown> }>;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; additionalProperties?: boolean } }> };
  parameters?: { name: string; in: string; example?: unknown; schema?: { format?: string } }[];
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
  security?: Record<string, unknown>[];
  tags?: string[];
  summary?: string;
}
interface Document {
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, Record<string, unknown>>;
    schemas: Record<string, { properties?: Record<string, { format?: string }> }>;
  };
}

describe('OpenAPI document at /docs-json', () => {
  let t: HttpTestApp;
  let doc: Document;
  beforeAll(async () => {
    t = await createHttpTestApp({ apiDocs: true });
    doc = (await t.http.get('/docs-json').expect(200)).body as Document;
  });
  afterAll(() => t.close());

  const operations = (): [string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]): [string, Operation] => [`${method} ${path}`, op]),
    );
  const codesOf = (op: Operation): string[] =>
    Object.entries(op.responses)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(([, response]) => Object.keys(response.content?.['application/problem+json']?.examples ?? {}));

  it('documents every route of the contract, and the HTML page is served at /docs', async () => {
    expect(
      operations()
        .map(([route]) => route)
        .sort(),
    ).toEqual([...ROUTES, ...ADMIN_ROUTES].sort());
    const page = await t.http.get('/docs').redirects(1).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it('lists every error answer of every route as application/problem+json with its codes and a matching example each', () => {
    for (const [route, op] of operations()) {
      const errors = Object.entries(op.responses).filter(([status]) => !/^2/.test(status));
      expect({ route, errors: errors.length > 0 }).toEqual({ route, errors: true });
      for (const [status, response] of errors) {
        expect({ route, status, types: Object.keys(response.content ?? {}) }).toEqual({
          route,
          status,
          types: ['application/problem+json'],
        });
        const media = response.content!['application/problem+json']!;
        expect(media.schema?.$ref).toBe('#/components/schemas/ProblemDto');
        const examples = Object.entries(media.examples ?? {});
        expect({ route, status, examples: examples.length > 0 }).toEqual({ route, status, examples: true });
        for (const [code, example] of examples) {
          expect({ route, code, status: STATUS_OF_CODE[code] }).toEqual({ route, code, status: Number(status) });
          expect(example.value).toMatchObject({ code, status: Number(status), type: `urn:process-notifications:problem:${code}` });
          expect(response.description).toContain(`\`${code}\``);
        }
      }
    }
  });

  it('names the codes each route can answer with (spec section 8)', () => {
    const ops = Object.fromEntries(operations());
    for (const route of ROUTES.filter((r) => r.includes('/v1/')))
      expect({ route, codes: codesOf(ops[route]!) }).toEqual({
        route,
        codes: expect.arrayContaining(['unauthorized', 'invalid_field', 'internal_error']),
      });
    expect(codesOf(ops['post /v1/sessions/{sid}/process-completions']!)).toEqual(
      expect.arrayContaining([
        'invalid_json',
        'owner_mismatch',
        'session_not_found',
        'loop_not_found',
        'unsupported_engine',
        'payload_too_large',
        'unsupported_media_type',
        'idempotency_collision',
        'delivery_stopped',
        'journal_unavailable',
      ]),
    );
    expect(codesOf(ops['post /v1/sessions/{sid}/process-lifecycle']!)).toEqual(
      expect.arrayContaining(['owner_mismatch', 'idempotency_collision']),
    );
    expect(codesOf(ops['post /v1/sessions/{sid}/loops/{lid}/process-notifications/{command_id}/consume']!)).toContain('not_found');
    expect(codesOf(ops['get /v1/sessions/{sid}/events']!)).toContain('stream_limit_reached');
    expect(codesOf(ops['get /healthz']!)).toContain('journal_unavailable');
    // Answered by the session's owner (spec section 9): every such route may find it unavailable.
    for (const route of ROUTES.filter((r) => r.includes('{sid}') && !/journal|events/.test(r))) {
      expect({ route, codes: codesOf(ops[route]!) }).toEqual({ route, codes: expect.arrayContaining(['owner_unavailable']) });
    }
  });

  it('names the codes of the admin routes (spec section 12.1): admin token only, paging problems, not_found', () => {
    const ops = Object.fromEntries(operations());
    for (const route of ADMIN_ROUTES.filter((r) => r.includes('/admin/'))) {
      expect({ route, codes: codesOf(ops[route]!) }).toEqual({
        route,
        codes: expect.arrayContaining(['unauthorized', 'forbidden', 'internal_error']),
      });
    }
    for (const route of ['get /v1/admin/sessions', 'get /v1/admin/loops', 'get /v1/admin/refusals']) {
      expect({ route, codes: codesOf(ops[route]!) }).toEqual({ route, codes: expect.arrayContaining(['invalid_field']) });
    }
    expect(codesOf(ops['get /v1/admin/notifications/{command_id}']!)).toEqual(expect.arrayContaining(['invalid_field', 'not_found']));
    expect(codesOf(ops['get /v1/whoami']!)).toEqual(expect.arrayContaining(['unauthorized']));
    expect(codesOf(ops['get /v1/whoami']!)).not.toContain('forbidden');
  });

  it('gives examples that match their answer: accepted for 202, duplicate for 200; appended only on 201', () => {
    const notify = doc.paths['/v1/sessions/{sid}/process-completions']!.post!.responses;
    expect(notify['202']!.content!['application/json']!.example).toMatchObject({ disposition: 'accepted', appended: true });
    expect(notify['200']!.content!['application/json']!.example).toMatchObject({ disposition: 'duplicate' });
    const publish = doc.paths['/v1/sessions/{sid}/process-lifecycle']!.post!.responses;
    expect(publish['201']!.content!['application/json']!.example).toMatchObject({ appended: true });
    expect(publish['200']!.content!['application/json']!.example).toMatchObject({ appended: false });
  });

  it('describes the request bodies with exactly the properties the library accepts', () => {
    const bodyOf = (path: string) => doc.paths[path]!.post!.requestBody!.content['application/json']!.schema;
    for (const [path, dto] of [
      ['/v1/sessions/{sid}/process-completions', ProcessCompletionNotificationDto],
      ['/v1/sessions/{sid}/process-lifecycle', ProcessLifecycleRecordDto],
    ] as const) {
      const body = bodyOf(path);
      expect({ path, properties: Object.keys(body.properties ?? {}) }).toEqual({ path, properties: [...dto.schema.properties] });
      expect(body.additionalProperties).toBe(false);
    }
  });

  it("describes an outcome's signal, nullable, beside its exit code (issue 47)", () => {
    const outcome = doc.components.schemas.ProcessOutcomeDto!.properties!;
    expect(Object.keys(outcome)).toEqual(expect.arrayContaining(['exit_code', 'diagnostic', 'signal']));
    expect(outcome.signal).toMatchObject({ type: 'string', nullable: true, example: 'SIGSEGV' });
  });

  it('types every number integer, documents a body for every POST and an example for every path parameter (issue 48)', () => {
    // Nothing on this wire is fractional: sequences, counts, limits, statuses, seconds.
    const numbers = JSON.stringify(doc).match(/"type":"number"/g) ?? [];
    expect(numbers).toEqual([]);
    for (const [route, op] of operations()) {
      if (route.startsWith('post ')) expect({ route, body: op.requestBody !== undefined }).toEqual({ route, body: true });
      for (const parameter of (op.parameters ?? []).filter((p) => p.in === 'path'))
        expect({ route, parameter: parameter.name, example: typeof parameter.example }).toEqual({
          route,
          parameter: parameter.name,
          example: 'string',
        });
    }
  });

  it('declares exactly the tags its operations use, and gives every operation a summary (issue 48)', () => {
    const used = new Set(operations().flatMap(([, op]) => op.tags ?? []));
    expect((doc.tags ?? []).map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const [route, op] of operations()) expect({ route, summary: typeof op.summary }).toEqual({ route, summary: 'string' });
  });

  it('declares the event stream as text/event-stream', () => {
    const ok = doc.paths['/v1/sessions/{sid}/events']!.get!.responses['200']!;
    expect(Object.keys(ok.content ?? {})).toEqual(['text/event-stream']);
  });

  it('describes the bearer scheme as an opaque token, not a JWT', () => {
    const scheme = doc.components.securitySchemes.bearer!;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(scheme)).not.toMatch(/jwt/i);
    for (const [route, op] of operations()) {
      if (route.includes('/v1/')) expect({ route, security: op.security }).toEqual({ route, security: [{ bearer: [] }] });
    }
  });

  it('gives every id, in paths and in bodies, format uuid', () => {
    for (const [route, op] of operations()) {
      for (const parameter of (op.parameters ?? []).filter((p) => p.in === 'path')) {
        expect({ route, parameter: parameter.name, format: parameter.schema?.format }).toEqual({
          route,
          parameter: parameter.name,
          format: 'uuid',
        });
      }
    }
    // idempotency_id is not always a UUID (a loop stop is keyed `stopped:<loop_id>`).
    for (const [schema, { properties = {} }] of Object.entries(doc.components.schemas)) {
      for (const [name, property] of Object.entries(properties)) {
        if (name.endsWith('_id') && name !== 'idempotency_id')
          expect({ schema, name, format: property.format }).toEqual({ schema, name, format: 'uuid' });
      }
    }
  });
});
