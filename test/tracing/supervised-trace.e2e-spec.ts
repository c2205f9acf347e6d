import { SPAN_NAMES as N } from '../../libs/process-notifications/src/tracing/trace-names.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { ServerProcess } from '../support/server-process.js';
import { TestSession } from '../supervisor/support/api.js';
import { SupervisorProcess } from '../supervisor/support/supervisor-process.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { isUnder, newTraceparent } from './support/trace-context.js';

const SERVER_SPAN = 2;
const CLIENT_SPAN = 3;

// Spec section 13: one supervised run is one trace, a child of TRACEPARENT, holding the
// supervisor's spans and the server's.
describe('tracing: a supervised run', () => {
  let dir: ReturnType<typeof tempDir>;
  let receiver: OtlpReceiver;
  let server: ServerProcess;
  let states = 0;

  beforeAll(async () => {
    dir = tempDir();
    receiver = await OtlpReceiver.start();
    server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, ...receiver.env });
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
    dir?.remove();
  });

  const supervise = async (env: Record<string, string>) => {
    const session = await TestSession.open(server.url);
    const args = [...session.supervisorArgs, '--state-dir', dir.file(`state-${++states}`), '--', 'sh', '-c', 'exit 3'];
    return { session, result: await SupervisorProcess.run(args, { env }) };
  };

  it('under TRACEPARENT with an exporter: one trace of the run, each attempt, and the server’s spans under them; the command’s status', async () => {
    const caller = newTraceparent();
    const secret = `env-secret-${states}`;
    const { session, result } = await supervise({ ...receiver.env, TRACEPARENT: caller.traceparent, PN_TEST_SECRET_VALUE: secret });
    expect(result.status).toBe(3);

    // Flushed before the supervisor exited: everything of its own is here already.
    const own = receiver.trace(caller.traceId).filter((span) => span.service === 'pn-supervise');
    const run = own.find((span) => span.name === 'pn-supervise.run');
    expect(run).toBeDefined();
    expect(run!.parentSpanId).toBe(caller.spanId);
    expect(run!.attributes).toMatchObject({ 'pn.session_id': session.sessionId, 'pn.loop_id': session.loopId, 'process.exit.code': 3 });
    const attempts = own.filter((span) => span.name === 'pn-supervise.attempt');
    // The check of the token, session and loop before the command runs (a GET of the session,
    // then of the loop), then started, completed and the notification, each answered at its
    // first attempt.
    const check = attempts.filter((span) => span.attributes['http.request.method'] === 'GET');
    expect(check.map((span) => span.attributes['url.path'])).toEqual([
      `/v1/sessions/${session.sessionId}`,
      `/v1/sessions/${session.sessionId}/loops/${session.loopId}`,
    ]);
    const deliveries = attempts.filter((span) => span.attributes['http.request.method'] === 'POST');
    expect(deliveries.map((span) => span.attributes['pn.kind'] ?? 'notification').sort()).toEqual(['completed', 'notification', 'started']);
    expect(attempts).toHaveLength(5);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(CLIENT_SPAN);
      expect(attempt.parentSpanId).toBe(run!.spanId);
    }

    // The server's spans are in the same trace, each request under the attempt that sent it.
    // Three requests (started, completed, the notification), each with its server span and its
    // pn.* span: the server exports them in batches of its own, so wait for all six, not the first.
    const spans = await receiver.waitFor(() => {
      const ofServer = receiver.trace(caller.traceId).filter((span) => span.service === 'process-notifications');
      return (
        ofServer.filter((span) => span.kind === SERVER_SPAN).length >= 3 &&
        ofServer.filter((span) => span.name === N.notify || span.name === N.lifecycle).length >= 3
      );
    }, 'the server’s spans of the three requests in the run’s trace');
    const trace = spans.filter((span) => span.traceId === caller.traceId);
    const requests = trace.filter((span) => span.kind === SERVER_SPAN && span.service === 'process-notifications');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const request of requests) expect(attempts.map((attempt) => attempt.spanId)).toContain(request.parentSpanId);
    for (const span of trace.filter((s) => s.name === N.notify || s.name === N.lifecycle)) expect(isUnder(span, run!, trace)).toBe(true);

    // Nothing secret: no token, no command line, no environment.
    const exported = receiver.rawBodies.join('\n');
    for (const text of [session.token, 'exit 3', secret, 'process.command']) expect(exported).not.toContain(text);
  });

  it('under TRACEPARENT without an exporter: passes that context on unchanged, exports nothing of its own', async () => {
    const caller = newTraceparent();
    const { result } = await supervise({ TRACEPARENT: caller.traceparent });
    expect(result.status).toBe(3);
    const spans = await receiver.waitFor(
      () => receiver.trace(caller.traceId).filter((span) => span.kind === SERVER_SPAN).length >= 3,
      'the server spans of the three requests',
    );
    const trace = spans.filter((span) => span.traceId === caller.traceId);
    for (const request of trace.filter((span) => span.kind === SERVER_SPAN)) expect(request.parentSpanId).toBe(caller.spanId);
    expect(trace.filter((span) => span.service === 'pn-supervise')).toEqual([]);
  });
});
