import { SPAN_ATTRIBUTES as A, SPAN_NAMES as N } from '../../libs/process-notifications/src/tracing/trace-names.js';
import { Cluster } from '../cluster/support/cluster.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { notification } from '../support/test-app.js';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { isUnder, newTraceparent, only } from './support/trace-context.js';
import { post } from './support/traced-http.js';

const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;
const SERVER_SPAN = 2;

// Spec sections 9 and 13: a request that one node forwards to the session's owner is one trace.
describeOnPostgres('tracing: two nodes on PostgreSQL', () => {
  const schema = freshSchema();
  let receiver: OtlpReceiver;
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    await admin!.query(`CREATE SCHEMA ${schema.name}`);
    receiver = await OtlpReceiver.start();
    cluster = await Cluster.start(2, schema.databaseUrl, { ...receiver.env, PN_LOG_LEVEL: 'info' });
    // Two real server processes with the SDK: slow to start on a busy machine.
  }, 180_000);

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

  it('gives 24 concurrent deliveries a trace each, and each journal batch one span linked to every caller it committed', async () => {
    const owner = cluster!.nodes[0]!;
    const session = await cluster!.openSession(owner, owner);
    const completions = () => `${owner.url}/v1/sessions/${session.sessionId}/process-completions`;
    const callers = Array.from({ length: 24 }, () => newTraceparent());
    const bodies = callers.map(() => notification(session.sessionId, session.loopId));
    // Another connection keeps the journal from taking inserts for a moment, so that the deliveries
    // queue up behind the writer's first batch and commit together, whatever the machine's timing.
    const lock = admin!.createQueryRunner();
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query(`LOCK TABLE ${schema.name}.pn_journal IN EXCLUSIVE MODE`);
    const sent = Promise.all(
      callers.map((caller, i) => post(completions(), session.token, bodies[i], { traceparent: caller.traceparent })),
    );
    // Held until the writer's first batch is seen waiting for the lock (a fixed pause could end
    // before any delivery got that far on a loaded machine), then a moment more for the rest to
    // queue behind it: well within the 1.5 s after which a writer that hears nothing from
    // PostgreSQL answers 503 (JOURNAL_SILENCE_MS). Asked on the lock's own connection (the admin pool has only that one);
    // pg_locks shows the present state even inside that transaction.
    const blocked = async (): Promise<boolean> =>
      (
        (await lock.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '${schema.name}.pn_journal'::regclass`,
        )) as [{ n: number }]
      )[0].n > 0;
    for (const deadline = Date.now() + 20_000; !(await blocked()) && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    await lock.query('COMMIT');
    await lock.release();
    const answers = await sent;
    expect(answers.map((answer) => answer.body.disposition)).toEqual(callers.map(() => 'accepted'));

    const appendOf = (traceId: string): ReceivedSpan | undefined => receiver.trace(traceId).find((span) => span.name === N.journalAppend);
    const commitsLinking = (append: ReceivedSpan): ReceivedSpan[] =>
      receiver.spans.filter((span) => span.name === N.journalCommit && span.links.some((link) => link.spanId === append.spanId));
    await receiver.waitFor(
      () => callers.every((caller) => appendOf(caller.traceId) && commitsLinking(appendOf(caller.traceId)!).length > 0),
      'every caller’s append, linked from a batch span',
    );
    const commits = new Set<ReceivedSpan>();
    callers.forEach((caller, i) => {
      const trace = receiver.trace(caller.traceId);
      // Its own trace: one delivery, this one.
      expect(only(trace, N.notify).attributes[A.commandId]).toBe(bodies[i]!.command_id);
      const append = only(trace, N.journalAppend);
      const linking = commitsLinking(append);
      expect(linking).toHaveLength(1);
      expect(linking[0]!.links).toContainEqual({ traceId: caller.traceId, spanId: append.spanId });
      commits.add(linking[0]!);
    });
    // Group commit stays visible: at least one batch committed several callers' records, as one span.
    const sizes = [...commits].map((commit) => commit.links.length);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(24);
    for (const commit of commits) expect(commit.attributes[A.batchSize]).toBeGreaterThanOrEqual(commit.links.length);
  });
});
