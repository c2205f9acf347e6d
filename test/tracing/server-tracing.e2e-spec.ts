import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SPAN_ATTRIBUTES as A, SPAN_NAMES as N } from '../../libs/process-notifications/src/tracing/trace-names.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { lifecycleRecord, notification } from '../support/test-app.js';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { isUnder, newTraceparent, only } from './support/trace-context.js';
import { openSession, post } from './support/traced-http.js';

const RECORD_MODULES = fileURLToPath(new URL('./fixtures/record-modules.mjs', import.meta.url));
const SERVER_SPAN = 2;
const ERROR = 2;

// The real server exporting to the test's own OTLP receiver (spec section 13).
describe('tracing: the server with OTEL_EXPORTER_OTLP_ENDPOINT (http/json)', () => {
  let dir: ReturnType<typeof tempDir>;
  let receiver: OtlpReceiver;
  let server: ServerProcess;
  let session: { sessionId: string; loopId: string; token: string };
  const completions = () => `${server.url}/v1/sessions/${session.sessionId}/process-completions`;
  const lifecycle = () => `${server.url}/v1/sessions/${session.sessionId}/process-lifecycle`;

  beforeAll(async () => {
    dir = tempDir();
    receiver = await OtlpReceiver.start();
    server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, ...receiver.env });
    session = await openSession(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
    dir?.remove();
  });

  /** Waits for the spans of the trace `traceId` to hold `names`, and returns them. */
  const traceWith = async (traceId: string, names: string[]): Promise<ReceivedSpan[]> => {
    await receiver.waitFor(() => names.every((name) => receiver.trace(traceId).some((span) => span.name === name)), names.join(', '));
    return receiver.trace(traceId);
  };

  it('continues the caller’s trace: its server span, and pn.notify, pn.journal.append, pn.dispatch under it with their attributes', async () => {
    const caller = newTraceparent();
    const body = notification(session.sessionId, session.loopId, { process_handle: `secret-handle-${randomUUID()}` });
    const answer = await post(completions(), session.token, body, { traceparent: caller.traceparent });
    expect(answer).toMatchObject({ status: 202, body: { disposition: 'accepted' } });

    const spans = await traceWith(caller.traceId, [N.notify, N.journalAppend, N.dispatch]);
    // The server span ends last, after the answer: it can come in a later export than the others.
    const serverSpan = (span: ReceivedSpan): boolean => span.kind === SERVER_SPAN && span.parentSpanId === caller.spanId;
    await receiver.waitFor(() => receiver.trace(caller.traceId).some(serverSpan), 'the server span in the caller’s trace');
    const request = receiver.trace(caller.traceId).find(serverSpan);
    expect(request).toBeDefined();
    expect(request!.service).toBe('process-notifications');
    const notify = only(spans, N.notify);
    const append = only(spans, N.journalAppend);
    const dispatch = only(spans, N.dispatch);
    expect(isUnder(notify, request!, spans)).toBe(true);
    expect(append.parentSpanId).toBe(notify.spanId);
    expect(dispatch.parentSpanId).toBe(notify.spanId);

    const ids = { [A.sessionId]: session.sessionId, [A.loopId]: session.loopId, [A.commandId]: body.command_id };
    const sequence = answer.body.sequence as number;
    expect(notify.attributes).toEqual({ ...ids, [A.sequence]: sequence, [A.disposition]: 'accepted' });
    expect(notify.status.code).not.toBe(ERROR);
    expect(append.attributes).toEqual({ ...ids, [A.sequence]: sequence, [A.appended]: true });
    expect(dispatch.attributes).toEqual({ ...ids, [A.sequence]: sequence, [A.disposition]: 'accepted' });

    // The request log line names the request's server span.
    const line = await server.waitForOutput(new RegExp(`\\{[^\\n]*"trace_id":"${caller.traceId}"[^\\n]*\\}`));
    expect(JSON.parse(line[0])).toMatchObject({
      msg: 'request completed',
      status: 202,
      trace_id: caller.traceId,
      span_id: request!.spanId,
    });
    // No token, no payload.
    const exported = receiver.rawBodies.join('\n');
    for (const secret of [session.token, SERVER_ADMIN_TOKEN, body.process_handle as string]) expect(exported).not.toContain(secret);
    // Nor the process's command line as a resource attribute.
    expect(exported).not.toContain('process.command');
  });

  it('answers an identical retry under another trace duplicate: trace context is not part of the fingerprint, nor journaled', async () => {
    const body = notification(session.sessionId, session.loopId);
    const [first, retry] = [newTraceparent(), newTraceparent()];
    const original = await post(completions(), session.token, body, { traceparent: first.traceparent });
    const again = await post(completions(), session.token, body, { traceparent: retry.traceparent });
    expect(original.body).toMatchObject({ disposition: 'accepted', appended: true });
    expect(again.body).toMatchObject({ disposition: 'duplicate', appended: false, sequence: original.body.sequence });

    const spans = await traceWith(retry.traceId, [N.notify, N.journalAppend, N.dispatch]);
    expect(only(spans, N.notify).attributes).toMatchObject({ [A.disposition]: 'duplicate', [A.sequence]: original.body.sequence });
    expect(only(spans, N.journalAppend).attributes).toMatchObject({ [A.appended]: false, [A.sequence]: original.body.sequence });
    const journal = await fetch(`${server.url}/v1/sessions/${session.sessionId}/journal?limit=1000`, {
      headers: { Authorization: `Bearer ${session.token}` },
    }).then((response) => response.text());
    expect(journal).toContain(body.command_id as string);
    for (const id of [first.traceId, retry.traceId, first.spanId, retry.spanId]) expect(journal).not.toContain(id);
  });

  it('marks a collision: error status, pn.error_code, disposition collision and the original’s sequence', async () => {
    const body = notification(session.sessionId, session.loopId);
    const original = await post(completions(), session.token, body);
    const caller = newTraceparent();
    const collision = await post(
      completions(),
      session.token,
      { ...body, state: 'failed', reason: 'failed' },
      { traceparent: caller.traceparent },
    );
    expect(collision).toMatchObject({ status: 422, body: { code: 'idempotency_collision' } });

    const spans = await traceWith(caller.traceId, [N.notify, N.journalAppend]);
    const notify = only(spans, N.notify);
    expect(notify.status.code).toBe(ERROR);
    expect(notify.attributes).toMatchObject({
      [A.errorCode]: 'idempotency_collision',
      [A.disposition]: 'collision',
      [A.sequence]: original.body.sequence,
      [A.commandId]: body.command_id,
    });
    // Never dispatched.
    expect(spans.some((span) => span.name === N.dispatch)).toBe(false);
  });

  it('traces a lifecycle record as pn.lifecycle and pn.journal.append; a disposition only on its collision', async () => {
    const record = lifecycleRecord(session.sessionId, session.loopId);
    const [first, second] = [newTraceparent(), newTraceparent()];
    const published = await post(lifecycle(), session.token, record, { traceparent: first.traceparent });
    expect(published.status).toBe(201);
    const collided = await post(lifecycle(), session.token, { ...record, process_handle: 'proc-2' }, { traceparent: second.traceparent });
    expect(collided.body).toMatchObject({ code: 'idempotency_collision' });

    const spans = await traceWith(first.traceId, [N.lifecycle, N.journalAppend]);
    const span = only(spans, N.lifecycle);
    expect(span.attributes).toMatchObject({ [A.sessionId]: session.sessionId, [A.loopId]: session.loopId, [A.eventId]: record.event_id });
    expect(span.attributes[A.disposition]).toBeUndefined();
    expect(only(spans, N.journalAppend).attributes).toMatchObject({ [A.eventId]: record.event_id, [A.appended]: true });
    const refused = only(await traceWith(second.traceId, [N.lifecycle]), N.lifecycle);
    expect(refused.status.code).toBe(ERROR);
    expect(refused.attributes).toMatchObject({ [A.errorCode]: 'idempotency_collision', [A.disposition]: 'collision' });
    expect(refused.attributes[A.sequence]).toBe(span.attributes[A.sequence]);
  });

  it('refuses with the problem’s code: a notification for a loop that does not exist', async () => {
    const caller = newTraceparent();
    const answer = await post(completions(), session.token, notification(session.sessionId, randomUUID()), {
      traceparent: caller.traceparent,
    });
    expect(answer.body).toMatchObject({ code: 'loop_not_found' });
    const notify = only(await traceWith(caller.traceId, [N.notify]), N.notify);
    expect(notify.status.code).toBe(ERROR);
    expect(notify.attributes).toMatchObject({ [A.errorCode]: 'loop_not_found', [A.disposition]: 'stopped' });
  });
});

// Unset: no SDK at all, and so nothing exported (spec section 13).
describe('tracing: the server without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('loads no OpenTelemetry SDK module and exports nothing, even for a request with traceparent', async () => {
    const dir = tempDir();
    const receiver = await OtlpReceiver.start();
    try {
      const run = async (env: Record<string, string>): Promise<{ modules: string[]; output: string }> => {
        const modulesFile = dir.file(`modules-${randomUUID()}.json`);
        const server = await ServerProcess.start({
          PN_DATABASE_URL: `sqlite:${dir.file(`${randomUUID()}.db`)}`,
          NODE_OPTIONS: `--import=${RECORD_MODULES}`,
          PN_TEST_MODULES_FILE: modulesFile,
          ...env,
        });
        const session = await openSession(server.url);
        const answer = await post(
          `${server.url}/v1/sessions/${session.sessionId}/process-completions`,
          session.token,
          notification(session.sessionId, session.loopId),
          {
            traceparent: newTraceparent().traceparent,
          },
        );
        expect(answer.body).toMatchObject({ disposition: 'accepted' });
        expect(await server.stop()).toEqual({ code: 0, signal: null });
        return { modules: JSON.parse(readFileSync(modulesFile, 'utf8')) as string[], output: server.output };
      };
      const isSdk = (path: string): boolean =>
        /@opentelemetry\/(?!api\/)|import-in-the-middle|require-in-the-middle|@fastify\/otel|tracing\/server-tracing/.test(path);

      const untraced = await run({});
      expect(untraced.modules.some((path) => path.includes('@opentelemetry/api/'))).toBe(true);
      expect(untraced.modules.filter(isSdk)).toEqual([]);
      expect(untraced.output).not.toContain('"trace_id"');

      // The same check finds the SDK when it is asked for (so the list above is not empty by mistake).
      const traced = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/unused`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      expect(traced.modules.some((path) => path.includes('@opentelemetry/sdk-node'))).toBe(true);

      // Only the traced run sent anything (and only to its own, unused path).
      expect(receiver.spans).toEqual([]);
      expect(receiver.otherRequests).toBeGreaterThan(0);
    } finally {
      await receiver.stop();
      dir.remove();
    }
    // Two starts of the real server, one with the SDK, on a machine that may be busy.
  }, 120_000);
});
