import { SPAN_NAMES as N } from '../../libs/process-notifications/src/tracing/trace-names.js';
import { Cluster } from '../cluster/support/cluster.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { notification } from '../support/test-app.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { isUnder, newTraceparent, only } from './support/trace-context.js';
import { post } from './support/traced-http.js';

const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;
const SERVER_SPAN = 2;

// Spec sections 9 and 13: a request that one node forwards to the session's owner is one trace.
describeOnPostgres('tracing: a request forwarded between two nodes on PostgreSQL', () => {
  const schema = freshSchema();
  let receiver: OtlpReceiver;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA ${schema.name}`);
    receiver = await OtlpReceiver.start();
    cluster = await Cluster.start(2, schema.databaseUrl, { ...receiver.env, PN_LOG_LEVEL: 'info' });
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    await admin!.query(`DROP SCHEMA IF EXISTS ${schema.name} CASCADE`);
    await admin!.destroy();
  });

  it('stays one trace: the owner’s server span under the forwarding node’s, and pn.notify under the owner’s', async () => {
    const [owner, forwarder] = cluster!.nodes as [NonNullable<Cluster>['nodes'][number], NonNullable<Cluster>['nodes'][number]];
    const session = await cluster!.openSession(owner, owner);
    const caller = newTraceparent();
    const url = `${forwarder.url}/v1/sessions/${session.sessionId}/process-completions`;
    const answer = await post(url, session.token, notification(session.sessionId, session.loopId), { traceparent: caller.traceparent });
    expect(answer.body).toMatchObject({ disposition: 'accepted' });

    await receiver.waitFor(() => receiver.trace(caller.traceId).some((span) => span.name === N.notify), 'pn.notify in the caller’s trace');
    // Both nodes' server spans: the forwarder's is the caller's child, the owner's under it.
    const spans = await receiver.waitFor(
      () => receiver.trace(caller.traceId).filter((span) => span.kind === SERVER_SPAN).length >= 2,
      'two server spans in the caller’s trace',
    );
    const trace = spans.filter((span) => span.traceId === caller.traceId);
    const servers = trace.filter((span) => span.kind === SERVER_SPAN);
    expect(servers).toHaveLength(2);
    const outer = servers.find((span) => span.parentSpanId === caller.spanId)!;
    const inner = servers.find((span) => span !== outer)!;
    expect(outer).toBeDefined();
    expect(isUnder(inner, outer, trace)).toBe(true);
    expect(inner.resource['process.pid']).not.toBe(outer.resource['process.pid']);
    const notify = only(trace, N.notify);
    expect(isUnder(notify, inner, trace)).toBe(true);
    expect(notify.resource['process.pid']).toBe(inner.resource['process.pid']);

    // Each node's request line names its own server span of the one trace.
    for (const [node, span] of [
      [forwarder, outer],
      [owner, inner],
    ] as const) {
      const line = await node.waitForOutput(new RegExp(`\\{[^\\n]*"span_id":"${span.spanId}"[^\\n]*\\}`));
      expect(JSON.parse(line[0])).toMatchObject({ msg: 'request completed', trace_id: caller.traceId });
    }
  });
});
