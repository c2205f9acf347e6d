import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import { firstValueFrom, timeout } from 'rxjs';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { createTestApp, notification, openSessionWithLoop } from '../support/test-app.js';

// Readers on a node that does not own the session learn of its new records from PostgreSQL
// (LISTEN/NOTIFY), and keep learning after their LISTEN connection is killed.
const admin = await connectPostgresAdmin();
const describeOnPostgres = admin ? describe : describe.skip;

type Node = { service: ProcessNotificationsService; close: () => Promise<void> };

describeOnPostgres('journal feed across nodes (PostgreSQL)', () => {
  const { name: schema, databaseUrl } = freshSchema();
  const nodes: Node[] = [];
  const startNode = async (): Promise<Node> => {
    const node = await createTestApp({ databaseUrl, leaseTtlMs: 600_000 });
    nodes.push(node);
    return node;
  };
  const listeners = async (): Promise<number[]> =>
    ((await admin!.query(`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN pn_journal'`)) as Array<{ pid: number }>).map(
      (row) => row.pid,
    );

  beforeAll(() => admin!.query(`CREATE SCHEMA "${schema}"`));
  afterAll(async () => {
    for (const node of nodes.splice(0)) await node.close();
    await admin!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin!.destroy();
  });

  it("wakes a non-owner's readers when the owner commits, and again after their LISTEN connection was killed", async () => {
    const owner = await startNode();
    const before = await listeners();
    const reader = await startNode();
    const [readerListener] = (await listeners()).filter((pid) => !before.includes(pid));
    expect(readerListener).toBeDefined();
    const { sessionId, loopId } = await openSessionWithLoop(owner.service);

    // Each hint is awaited from before the commit it is about, so only a hint can pass.
    const hinted = async (): Promise<void> => {
      const hint = firstValueFrom(reader.service.journalChanges(sessionId).pipe(timeout(5_000)));
      const n = notification(sessionId, loopId);
      await owner.service.notifyProcessCompletion(sessionId, n);
      await hint;
      expect((await reader.service.readJournal(sessionId)).map((record) => record.idempotencyId)).toContain(n.command_id);
    };
    await hinted();

    // The connection dies without the client noticing by itself (a network fault, a restart):
    // the reader polls meanwhile, then listens on a new connection.
    await admin!.query('SELECT pg_terminate_backend($1)', [readerListener]);
    await hinted();
    for (;;) {
      const now = await listeners();
      if (now.some((pid) => !before.includes(pid) && pid !== readerListener)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await hinted();
  });
});
