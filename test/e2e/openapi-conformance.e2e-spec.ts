import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Response } from 'supertest';
import { ShutdownState } from '../../src/shutdown/shutdown-state.js';
import { signalledRecord } from '../support/outcome-records.js';
import { admin, bearer, createHttpTestApp, lifecycleRecord, notification, type HttpTestApp } from './support/http-test-app.js';
import { spectralOasFindings } from './support/spectral-oas-rules.js';

// ajv-formats is CommonJS: its plugin is the module itself, or its `default` under ESM interop.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'node_modules/.bin');
// The headers whose presence an answer must document (the list).
const WATCHED_HEADERS = ['idempotent-replayed', 'retry-after', 'allow', 'x-request-id'];

type Json = Record<string, unknown>;
interface HeaderDoc {
  required?: boolean;
}
interface ResponseDoc {
  description: string;
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema?: Json; examples?: Record<string, unknown> }>;
}
interface OperationDoc {
  responses: Record<string, ResponseDoc>;
}
interface ApiDocument {
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, Json> };
}

/** A copy of `schema` in which every object schema with properties admits no other property. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'example' ? value : closed(value)]));
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

/** Points the document's own `#/...` references at the copy registered under `id`. */
function rebased(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rebased(item, id));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${id}${value}` : rebased(value, id),
    ]),
  );
}

/**
 * Checks real answers against the document the server serves: the status is documented for the
 * operation, the body validates against its schema with every object closed, a problem's `code`
 * is one the status names, and every watched header it carries is documented (and every
 * documented required header is there). Problems are collected, not thrown, to see all at once.
 */
class AnswerChecker {
  readonly failures: string[] = [];
  readonly answered = new Map<string, Set<'ok' | 'error'>>();
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: ApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: closed(doc.components) as Json });
  }

  /**
   * `route` is `method /path/{template}` as the document names it. `counts` false: an answer of
   * the route's path to another method (a 405), checked against the route's documentation but
   * not counted as an answer of the route.
   */
  check(
    route: string,
    answer: { status: number; headers: Record<string, string | string[] | undefined>; body: unknown },
    counts = true,
  ): void {
    const [method, path] = route.split(' ') as [string, string];
    const operation = this.doc.paths[path]?.[method];
    if (operation === undefined) return void this.failures.push(`${route}: not in the document`);
    const seen = this.answered.get(route) ?? new Set();
    if (counts) seen.add(answer.status < 400 ? 'ok' : 'error');
    this.answered.set(route, seen);
    const where = `${route} → ${answer.status}`;
    const response = operation.responses[String(answer.status)];
    if (response === undefined) return void this.failures.push(`${where}: status not documented`);
    const documented = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]));
    for (const name of WATCHED_HEADERS)
      if (answer.headers[name] !== undefined && documented[name] === undefined)
        this.failures.push(`${where}: header ${name} not documented`);
    for (const [name, header] of Object.entries(documented))
      if (header.required === true && answer.headers[name] === undefined) this.failures.push(`${where}: required header ${name} missing`);
    const type = String(answer.headers['content-type'] ?? '').split(';')[0]!;
    const media = response.content?.[type];
    if (media === undefined) return void this.failures.push(`${where}: content type ${type || '(none)'} not documented`);
    if (type === 'text/event-stream') return;
    // A JSON answer without a schema would pass anything (issue 48: /healthz's 200 had none).
    if (media.schema === undefined) return void this.failures.push(`${where}: ${type} has no schema`);
    const key = `${route} ${answer.status} ${type}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(rebased(closed(media.schema), 'doc') as Json);
      this.validators.set(key, validate);
    }
    if (!validate(answer.body)) this.failures.push(`${where}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(answer.body)}`);
    if (type === 'application/problem+json') {
      const code = (answer.body as { code?: string }).code ?? '';
      if (!(code in (media.examples ?? {}))) this.failures.push(`${where}: problem code ${code} not documented for this status`);
    }
  }
}

describe('OpenAPI document: every real answer validates against it (issue 48)', () => {
  let t: HttpTestApp;
  let doc: ApiDocument;
  let scratch: string;
  beforeAll(async () => {
    // Two streams a session: the third is a 429 to check too.
    t = await createHttpTestApp({ apiDocs: true, maxStreamsPerSession: 2 });
    doc = (await t.http.get('/docs-json').expect(200)).body as ApiDocument;
    scratch = mkdtempSync(join(tmpdir(), 'pn-openapi-'));
    writeFileSync(join(scratch, 'openapi.json'), JSON.stringify(doc));
  });
  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await t.close();
  });

  it('sends valid and faulty requests to every operation and finds each answer documented, closed objects included', async () => {
    const checker = new AnswerChecker(doc);
    const send = async (route: string, request: PromiseLike<Response>): Promise<Response> => {
      const answer = await request;
      checker.check(route, answer);
      return answer;
    };
    // An event stream never ends on its own: its status and headers are the answer.
    const stream = async (route: string, url: string, headers: Record<string, string>): Promise<number> => {
      const abort = new AbortController();
      const answer = await fetch(`${t.url}${url}`, { headers, signal: abort.signal });
      checker.check(route, { status: answer.status, headers: Object.fromEntries(answer.headers), body: await bodyOf(answer) });
      abort.abort();
      return answer.status;
    };
    const bodyOf = async (answer: globalThis.Response): Promise<unknown> =>
      answer.headers.get('content-type')?.includes('json') ? answer.json() : undefined;
    const unknownId = randomUUID();

    // Sessions and loops.
    const created = await send('post /v1/sessions', t.http.post('/v1/sessions').set(admin).send({}));
    const sid = created.body.session_id as string;
    const auth = bearer(created.body.token as string);
    await send('post /v1/sessions', t.http.post('/v1/sessions').send({}));
    await send('post /v1/sessions', t.http.post('/v1/sessions').set(admin).set('Content-Type', 'text/plain').send('x'));
    await send('post /v1/sessions', t.http.post('/v1/sessions').set(admin).set('Content-Type', 'application/json').send('{'));
    await send('post /v1/sessions', t.http.post('/v1/sessions').set(admin).send({ session_id: sid }));
    await send('get /v1/sessions/{sid}', t.http.get(`/v1/sessions/${sid}`).set(auth));
    await send('get /v1/sessions/{sid}', t.http.get(`/v1/sessions/${unknownId}`).set(admin));
    await send('get /v1/sessions/{sid}', t.http.get('/v1/sessions/not-a-uuid').set(admin));
    const loop = await send('post /v1/sessions/{sid}/loops', t.http.post(`/v1/sessions/${sid}/loops`).set(auth).send({}));
    const lid = loop.body.loop_id as string;
    await send('post /v1/sessions/{sid}/loops', t.http.post(`/v1/sessions/${sid}/loops`).set(auth).send({ engine: 'nope' }));
    await send('get /v1/sessions/{sid}/loops/{lid}', t.http.get(`/v1/sessions/${sid}/loops/${lid}`).set(auth));
    await send('get /v1/sessions/{sid}/loops/{lid}', t.http.get(`/v1/sessions/${sid}/loops/${unknownId}`).set(auth));

    // Completions, lifecycle records, the pending set: an outcome null and one with a signal.
    const completions = 'post /v1/sessions/{sid}/process-completions';
    const lifecycle = 'post /v1/sessions/{sid}/process-lifecycle';
    const pending = notification(sid, lid);
    await send(completions, t.http.post(`/v1/sessions/${sid}/process-completions`).set(auth).send(pending));
    await send(completions, t.http.post(`/v1/sessions/${sid}/process-completions`).set(auth).send(pending));
    await send(
      completions,
      t.http
        .post(`/v1/sessions/${sid}/process-completions`)
        .set(auth)
        .send({ ...pending, process_handle: 'other' }),
    );
    await send(
      completions,
      t.http
        .post(`/v1/sessions/${sid}/process-completions`)
        .set(auth)
        .send({ ...pending, session_id: unknownId }),
    );
    await send(
      completions,
      t.http
        .post(`/v1/sessions/${sid}/process-completions`)
        .set(auth)
        .send({ ...pending, extra: 1 }),
    );
    await send(
      completions,
      t.http
        .post(`/v1/sessions/${sid}/process-completions`)
        .set(auth)
        .send({ ...pending, process_handle: 'x'.repeat(2_000_000) }),
    );
    // A batch: each notification's result is the single route's answer (a duplicate, a collision,
    // a bad field, an unknown loop), and a batch the route itself refuses.
    const batch = 'post /v1/sessions/{sid}/process-completions/batch';
    const notifications = [pending, { ...pending, process_handle: 'other' }, { ...pending, extra: 1 }, notification(sid, unknownId)];
    const batched = await send(batch, t.http.post(`/v1/sessions/${sid}/process-completions/batch`).set(auth).send({ notifications }));
    expect(batched.body.results.map((result: { status: number }) => result.status)).toEqual([200, 422, 400, 404]);
    await send(batch, t.http.post(`/v1/sessions/${sid}/process-completions/batch`).set(auth).send({ notifications: [] }));
    const killed = notification(sid, lid, { state: 'killed', reason: 'killed' });
    await send(completions, t.http.post(`/v1/sessions/${sid}/process-completions`).set(auth).send(killed));
    const record = signalledRecord(sid, lid, killed.command_id as string, 'killed', 'SIGSEGV');
    await send(lifecycle, t.http.post(`/v1/sessions/${sid}/process-lifecycle`).set(auth).send(record));
    await send(lifecycle, t.http.post(`/v1/sessions/${sid}/process-lifecycle`).set(auth).send(record));
    await send(
      lifecycle,
      t.http
        .post(`/v1/sessions/${sid}/process-lifecycle`)
        .set(auth)
        .send({ ...record, signal: 'SIGKILL' }),
    );
    await send(
      lifecycle,
      t.http
        .post(`/v1/sessions/${sid}/process-lifecycle`)
        .set(auth)
        .send(lifecycleRecord(sid, lid, { kind: 'x' })),
    );
    const pendingPath = `/v1/sessions/${sid}/loops/${lid}/process-notifications`;
    const pendingRoute = 'get /v1/sessions/{sid}/loops/{lid}/process-notifications';
    const listed = await send(pendingRoute, t.http.get(pendingPath).set(auth));
    expect(listed.body.notifications.map((n: { outcome: unknown }) => n.outcome === null)).toEqual([true, false]);
    await send(pendingRoute, t.http.get(`/v1/sessions/${sid}/loops/not-a-uuid/process-notifications`).set(auth));

    // Journal and event streams.
    await send('get /v1/sessions/{sid}/journal', t.http.get(`/v1/sessions/${sid}/journal?after=0&limit=100`).set(auth));
    await send('get /v1/sessions/{sid}/journal', t.http.get(`/v1/sessions/${sid}/journal?after=-1`).set(auth));
    await stream('get /v1/sessions/{sid}/events', `/v1/sessions/${sid}/events`, auth);
    await stream('get /v1/sessions/{sid}/events', `/v1/sessions/${sid}/events`, bearer('nope'));
    await stream('get /v1/sessions/{sid}/loops/{lid}/events', `/v1/sessions/${sid}/loops/${lid}/events`, auth);
    await stream('get /v1/sessions/{sid}/loops/{lid}/events', `/v1/sessions/${sid}/loops/${lid}/events`, {});

    // A session with its most streams open: the next one is 429 stream_limit_reached (Retry-After).
    const crowded = (await t.http.post('/v1/sessions').set(admin).send({}).expect(201)).body as { session_id: string; token: string };
    const held = await Promise.all(
      [0, 1].map(async () => {
        const abort = new AbortController();
        const answer = await fetch(`${t.url}/v1/sessions/${crowded.session_id}/events`, {
          headers: bearer(crowded.token),
          signal: abort.signal,
        });
        expect(answer.status).toBe(200);
        return abort;
      }),
    );
    expect(await stream('get /v1/sessions/{sid}/events', `/v1/sessions/${crowded.session_id}/events`, bearer(crowded.token))).toBe(429);
    for (const abort of held) abort.abort();

    // The admin read API, while notifications and refusals exist.
    await send('get /v1/admin/sessions', t.http.get('/v1/admin/sessions').set(admin));
    await send('get /v1/admin/sessions', t.http.get('/v1/admin/sessions?limit=0').set(admin));
    await send('get /v1/admin/loops', t.http.get('/v1/admin/loops').set(admin));
    await send('get /v1/admin/loops', t.http.get('/v1/admin/loops').set(auth));
    await send('get /v1/admin/notifications/{command_id}', t.http.get(`/v1/admin/notifications/${pending.command_id}`).set(admin));
    await send('get /v1/admin/notifications/{command_id}', t.http.get(`/v1/admin/notifications/${killed.command_id}`).set(admin));
    await send('get /v1/admin/notifications/{command_id}', t.http.get(`/v1/admin/notifications/${unknownId}`).set(admin));
    await send('get /v1/admin/nodes', t.http.get('/v1/admin/nodes').set(admin));
    await send('get /v1/admin/nodes', t.http.get('/v1/admin/nodes'));
    await send('get /v1/admin/refusals', t.http.get('/v1/admin/refusals').set(admin));
    await send('get /v1/admin/refusals', t.http.get('/v1/admin/refusals?limit=abc').set(admin));
    await send('get /v1/whoami', t.http.get('/v1/whoami').set(auth));
    await send('get /v1/whoami', t.http.get('/v1/whoami').set(admin));
    await send('get /v1/whoami', t.http.get('/v1/whoami').set(bearer('nope')));

    // Consumption: single (then replayed), batch.
    const one = `${pendingPath}/${pending.command_id}/consume`;
    const consumeOne = 'post /v1/sessions/{sid}/loops/{lid}/process-notifications/{command_id}/consume';
    const consumeMany = 'post /v1/sessions/{sid}/loops/{lid}/process-notifications/consume';
    await send(consumeOne, t.http.post(one).set(auth).send({}));
    await send(consumeOne, t.http.post(one).set(auth).send({}));
    await send(consumeOne, t.http.post(`${pendingPath}/${unknownId}/consume`).set(auth).send({}));
    await send(
      consumeMany,
      t.http
        .post(`${pendingPath}/consume`)
        .set(auth)
        .send({ command_ids: [killed.command_id, unknownId] }),
    );
    await send(consumeMany, t.http.post(`${pendingPath}/consume`).set(auth).send({ command_ids: [] }));

    // A stopped loop: a delivery to it stops (503, Retry-After).
    const stop = 'post /v1/sessions/{sid}/loops/{lid}/stop';
    await send(stop, t.http.post(`/v1/sessions/${sid}/loops/${lid}/stop`).set(auth).send({}));
    await send(stop, t.http.post(`/v1/sessions/${sid}/loops/${unknownId}/stop`).set(auth).send({}));
    const stopped = await send(completions, t.http.post(`/v1/sessions/${sid}/process-completions`).set(auth).send(notification(sid, lid)));
    expect(stopped.body).toMatchObject({ code: 'delivery_stopped' });

    // Token rotation, close, and what a closed session answers.
    const rotated = await send('post /v1/sessions/{sid}/token', t.http.post(`/v1/sessions/${sid}/token`).set(admin).send({}));
    await send('post /v1/sessions/{sid}/token', t.http.post(`/v1/sessions/${sid}/token`).set(auth).send({}));
    const auth2 = bearer(rotated.body.token as string);
    await send('post /v1/sessions/{sid}/close', t.http.post(`/v1/sessions/${sid}/close`).set(auth2).send({}));
    await send('post /v1/sessions/{sid}/close', t.http.post(`/v1/sessions/${unknownId}/close`).set(admin).send({}));
    await send('post /v1/sessions/{sid}/token', t.http.post(`/v1/sessions/${sid}/token`).set(admin).send({}));
    await send(
      consumeMany,
      t.http
        .post(`${pendingPath}/consume`)
        .set(admin)
        .send({ command_ids: [unknownId] }),
    );

    // Every path answers a method it has no operation for with 405 and `Allow` naming the ones it
    // has, checked against each of its operations' documentation.
    for (const [path, item] of Object.entries(doc.paths)) {
      const methods = Object.keys(item);
      const url = path.replace(/\{[^}]+\}/g, randomUUID());
      for (const method of ['get', 'post', 'put', 'delete', 'patch'].filter((m) => !methods.includes(m))) {
        const answer = await t.http[method as 'get'](url).set(admin);
        expect({ path, method, status: answer.status, allow: answer.headers.allow }).toEqual({
          path,
          method,
          status: 405,
          allow: methods
            .flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()]))
            .sort()
            .join(', '),
        });
        for (const documented of methods) checker.check(`${documented} ${path}`, answer, false);
      }
    }

    // Health: up, then a node shutting down.
    await send('get /healthz', t.http.get('/healthz'));
    t.app.get(ShutdownState).begin();
    await send('get /healthz', t.http.get('/healthz'));

    expect(checker.failures).toEqual([]);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    expect(operations.filter((route) => checker.answered.get(route)?.size !== 2)).toEqual([]);
  });

  it("passes Redocly's recommended rules without an error", () => {
    const lint = spawnSync(
      join(BIN, 'redocly'),
      ['lint', '--extends', 'recommended', '--format', 'stylish', join(scratch, 'openapi.json')],
      {
        cwd: scratch,
        encoding: 'utf8',
        // Offline: no telemetry, no update check.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
    );
    expect({ status: lint.status, errors: `${lint.stdout}${lint.stderr}`.split('\n').filter((line) => /\berror\b/.test(line)) }).toEqual({
      status: 0,
      errors: [],
    });
  });

  it("passes Spectral's spectral:oas rules without a finding: descriptions, declared tags, contact, valid examples, ...", () => {
    expect(spectralOasFindings(doc as unknown as Record<string, unknown>)).toEqual([]);
  });

  it("gives types (openapi-typescript) that the contract package's wire types are assignable to and from", () => {
    const generated = spawnSync(
      join(BIN, 'openapi-typescript'),
      [join(scratch, 'openapi.json'), '--immutable', '-o', join(scratch, 'api.d.ts')],
      {
        encoding: 'utf8',
      },
    );
    expect(generated.status).toBe(0);
    const contract = join(REPO, 'libs/process-notifications-contract/src/index.js');
    writeFileSync(
      join(scratch, 'check.ts'),
      `import type { components } from './api.js';
import type * as C from ${JSON.stringify(contract)};
type S = components['schemas'];
// Both directions: a generated client reads what the contract types say the server answers.
export function answers(
  session: C.Session, sessionDoc: S['SessionDto'],
  loop: C.Loop, loopDoc: S['LoopDto'],
  delivery: C.CompletionDelivery, deliveryDoc: S['ProcessCompletionDeliveryDto'],
  publication: C.LifecyclePublication, publicationDoc: S['LifecyclePublicationDto'],
  outcome: C.ProcessOutcome, outcomeDoc: S['ProcessOutcomeDto'],
  pending: C.PendingNotifications,
  consumption: C.Consumption, consumptionDoc: S['ConsumptionDto'],
  location: C.NotificationLocations, locationDoc: S['NotificationLocationsDto'],
  refusals: C.Refusals, refusalsDoc: S['RefusalsDto'],
  problem: C.Problem, problemDoc: S['ProblemDto'],
  consumeResults: C.ConsumeResults, whoami: C.Whoami,
  record: C.JournalRecord, recordDoc: S['JournalRecordDto'],
  x0: C.SessionCreated, y0: S['SessionCreatedDto'],
  x1: C.SessionToken, y1: S['SessionTokenDto'],
  x2: C.ClosedSession, y2: S['SessionClosedDto'],
  x5: C.AdminSessionsPage, y5: S['AdminSessionsPageDto'],
  x6: C.AdminLoopsPage, y6: S['AdminLoopsPageDto'],
  x7: C.ClusterNodes, y7: S['NodesDto'],
): void {
  const a: S['SessionDto'] = session; const b: C.Session = sessionDoc;
  const c: S['LoopDto'] = loop; const d: C.Loop = loopDoc;
  const e: S['ProcessCompletionDeliveryDto'] = delivery; const f: C.CompletionDelivery = deliveryDoc;
  const g: S['LifecyclePublicationDto'] = publication; const h: C.LifecyclePublication = publicationDoc;
  const i: S['ProcessOutcomeDto'] = outcome; const j: C.ProcessOutcome = outcomeDoc;
  // The contract pairs each state with its reasons, which a schema of two enums cannot say: one way only.
  const k: S['PendingNotificationsDto'] = pending;
  const m: S['ConsumptionDto'] = consumption; const n: C.Consumption = consumptionDoc;
  const o: S['NotificationLocationsDto'] = location; const p: C.NotificationLocations = locationDoc;
  const q: S['RefusalsDto'] = refusals; const r: C.Refusals = refusalsDoc;
  const s: S['ProblemDto'] = problem; const u: C.Problem = problemDoc;
  // Unions by field (a batch result, who a token is) a schema of optional fields cannot say: one way.
  const v: S['ConsumeBatchResultsDto'] = consumeResults; const w: S['WhoamiDto'] = whoami;
  // A journal record's payload is typed by its kind in the contract, an object in the document.
  const y: Omit<S['JournalRecordDto'], 'payload'> = record; const z: Omit<C.JournalRecord, 'payload'> = recordDoc;
  void [v, w, y, z];
  const p0: S['SessionCreatedDto'] = x0; const q0: C.SessionCreated = y0; void [p0, q0];
  const p1: S['SessionTokenDto'] = x1; const q1: C.SessionToken = y1; void [p1, q1];
  const p2: S['SessionClosedDto'] = x2; const q2: C.ClosedSession = y2; void [p2, q2];
  const p5: S['AdminSessionsPageDto'] = x5; const q5: C.AdminSessionsPage = y5; void [p5, q5];
  const p6: S['AdminLoopsPageDto'] = x6; const q6: C.AdminLoopsPage = y6; void [p6, q6];
  const p7: S['NodesDto'] = x7; const q7: C.ClusterNodes = y7; void [p7, q7];
  void [a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q, r, s, u];
}
`,
    );
    // No ambient types (@types/*): only the two files and what they import.
    const options = { strict: true, exactOptionalPropertyTypes: true, module: 'nodenext', noEmit: true, skipLibCheck: true, types: [] };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['check.ts'] }));
    const tsc = spawnSync(join(BIN, 'tsc'), ['-p', join(scratch, 'tsconfig.json')], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
