import { REFUSAL_RETENTION } from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { admin, createHttpTestApp, notification, openSessionWithLoop, bearer, type HttpTestApp } from '../e2e/support/http-test-app.js';
import { RefusalLog } from '../../src/refusals/refusal-log.service.js';
import { dataSourceOf } from '../notifications/support/journal-probe.js';

// A supervisor gone wrong floods the server with refused deliveries (spec section 12.1): the
// accepted deliveries among them are still answered and journaled, and the refusals table keeps
// the newest REFUSAL_RETENTION rows only, however many were refused.
describe('a flood of refusals', () => {
  const dir = tempDir();
  let t: HttpTestApp;
  let db: DataSource;

  beforeEach(async () => {
    t = await createHttpTestApp({ databaseUrl: `sqlite:${dir.file(`flood-${randomUUID()}.db`)}` });
    db = dataSourceOf(t.app as unknown as Parameters<typeof dataSourceOf>[0]);
  });
  afterEach(() => t.close());
  afterAll(() => dir.remove());

  it('answers the accepted deliveries among them, and keeps the table bounded, newest first', async () => {
    const { sessionId, loopId, token } = await openSessionWithLoop(t);
    const post = (body: Record<string, unknown>) =>
      t.http
        .post(`/v1/sessions/${sessionId}/process-completions`)
        .set(bearer(token))
        .send(body)
        .then((response) => response.status);
    const floods = 3 * REFUSAL_RETENTION;
    // Each to a loop that does not exist: loop_not_found, journaled nowhere.
    const refused = Array.from({ length: floods }, () => notification(sessionId, randomUUID()));
    const accepted = Array.from({ length: 50 }, () => notification(sessionId, loopId));
    // Sent 200 at a time, the accepted ones spread among the refused.
    const bodies = [...refused];
    accepted.forEach((body, i) => bodies.splice((i + 1) * 60, 0, body));
    const statuses = new Map<unknown, number>();
    for (let i = 0; i < bodies.length; i += 200) {
      const batch = bodies.slice(i, i + 200);
      (await Promise.all(batch.map(post))).forEach((status, j) => statuses.set(batch[j], status));
    }
    expect(refused.every((body) => statuses.get(body) === 404)).toBe(true);
    expect(accepted.map((body) => statuses.get(body))).toEqual(accepted.map(() => 202));

    await t.app.get(RefusalLog).flush();
    const [{ n }] = (await db.query('SELECT COUNT(*) AS n FROM pn_refusals')) as [{ n: number }];
    expect(Number(n)).toBe(REFUSAL_RETENTION);
    const { body } = await t.http.get(`/v1/admin/refusals?limit=${REFUSAL_RETENTION}`).set(admin).expect(200);
    const listed = (body as { refusals: Array<{ command_id: string }> }).refusals;
    expect(listed).toHaveLength(REFUSAL_RETENTION);
    expect(new Set(listed.map((refusal) => refusal.command_id)).size).toBe(REFUSAL_RETENTION);
    // The newest kept, the oldest pruned: the last batch sent is listed, the first is not.
    const listedIds = new Set(listed.map((refusal) => refusal.command_id));
    const sentLast = bodies.slice(-200).filter((body) => refused.includes(body));
    expect(sentLast.filter((body) => !listedIds.has(body.command_id as string))).toEqual([]);
    expect(bodies.slice(0, 200).filter((body) => listedIds.has(body.command_id as string))).toEqual([]);
    // Only refusals: nothing accepted is listed.
    const answeredLast = new Set(refused.map((n) => n.command_id as string));
    expect(listed.every((refusal) => answeredLast.has(refusal.command_id))).toBe(true);
  }, 120_000);
});
