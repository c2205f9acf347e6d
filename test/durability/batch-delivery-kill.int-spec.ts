import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  ProcessNotificationsClient,
  SUCCESS_DISPOSITIONS,
  type CompletionDelivery,
  type ProcessCompletionNotification,
} from 'process-notifications-client';
import { freePort } from '../support/private-postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { tempDir } from './support/temp-dir.js';

// A session's deliveries travel in batches (issue 46). The server SIGKILLed while batches are on
// their way, then started again on the same file and port: every call the client made ends
// answered (accepted, or duplicate for one journaled before the kill whose answer was lost), each
// notification is journaled exactly once, and every one answered before the kill was journaled.
describe('batch deliveries across a SIGKILL of the server (file database)', () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it('loses no notification and journals none twice; what was answered before the kill was committed', async () => {
    const port = await freePort();
    // Room for every notification in the loop's pending set: none is refused inbox_full.
    const env = { PN_DATABASE_URL: `sqlite:${dir.file('journal.db')}`, PORT: String(port), PN_LOOP_CAPACITY: '1000' };
    let server = await ServerProcess.start(env);
    try {
      const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
      const session = await admin.createSession();
      const client = new ProcessNotificationsClient({
        baseUrl: server.url,
        token: session.token,
        retry: { baseDelayMs: 20, maxDelayMs: 200 },
      });
      const { loop_id: loopId } = await client.openLoop(session.session_id);
      const sent: ProcessCompletionNotification[] = Array.from({ length: 600 }, (_, i) => ({
        command_id: randomUUID(),
        session_id: session.session_id,
        loop_id: loopId,
        process_handle: `job-${i}`,
        state: 'exited',
        reason: 'exited',
      }));
      const answeredBeforeKill = new Set<string>();
      let killed = false;
      let answered = 0;
      let kill!: () => void;
      const halfway = new Promise<void>((resolve) => (kill = resolve));
      const calls = sent.map(async (notification, i) => {
        // In waves, so that batches are on their way when the kill comes.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(i / 40) * 5));
        const delivery: CompletionDelivery = await client.deliverCompletion(notification);
        if (!killed) answeredBeforeKill.add(delivery.command_id);
        if (++answered === 150) kill();
        return delivery;
      });
      await halfway;
      killed = true;
      expect(await server.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      server = await ServerProcess.start(env);

      const deliveries = await Promise.all(calls);
      expect(deliveries.map((delivery) => delivery.command_id)).toEqual(sent.map((n) => n.command_id));
      for (const delivery of deliveries) expect(SUCCESS_DISPOSITIONS).toContain(delivery.disposition);
      expect(answeredBeforeKill.size).toBeGreaterThanOrEqual(150);
      expect(answeredBeforeKill.size).toBeLessThan(sent.length);

      const db = new Database(dir.file('journal.db'), { readonly: true });
      try {
        const rows = db
          .prepare("SELECT idempotency_id, count(*) AS n FROM pn_journal WHERE kind = 'process_notification' GROUP BY idempotency_id")
          .all() as Array<{ idempotency_id: string; n: number }>;
        expect(rows.filter((row) => row.n !== 1)).toEqual([]);
        expect(rows.map((row) => row.idempotency_id).sort()).toEqual(sent.map((n) => n.command_id).sort());
      } finally {
        db.close();
      }
      const pending = await client.pendingNotifications(session.session_id, loopId);
      expect(pending.notifications.map((n) => n.command_id).sort()).toEqual(sent.map((n) => n.command_id).sort());
      // Each answered before the kill was in the journal the restarted server read.
      const journaled = new Set(pending.notifications.map((n) => n.command_id));
      expect([...answeredBeforeKill].filter((id) => !journaled.has(id))).toEqual([]);
      // The calls went in batches, also after the restart.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/pn_http_requests_total\{route="\/v1\/sessions\/:sid\/process-completions\/batch",status="200"\} [1-9]/);
    } finally {
      await server.stop('SIGKILL');
    }
  }, 60_000);
});
