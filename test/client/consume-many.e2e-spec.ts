import {
  MAX_CONSUME_BATCH,
  ProcessNotificationsClient,
  ProblemError,
  type ProcessCompletionNotification,
} from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import type { JournalCommit } from 'nestjs-process-notifications';
import { ADMIN_TOKEN, createHttpTestApp, type HttpTestApp } from '../e2e/support/http-test-app.js';

// Batch consume, POST /v1/sessions/:sid/loops/:lid/process-notifications/consume (issue 37), and
// the client's coalescing of consumes issued together.

function completion(sessionId: string, loopId: string): ProcessCompletionNotification {
  return { command_id: randomUUID(), session_id: sessionId, loop_id: loopId, process_handle: 'job', state: 'exited', reason: 'exited' };
}

describe('batch consume against the real server', () => {
  let server: HttpTestApp;
  let requests = 0;
  beforeAll(async () => {
    server = await createHttpTestApp({ loopCapacity: 1000 });
  });
  afterAll(() => server.close());

  async function loopWith(count: number) {
    const admin = new ProcessNotificationsClient({ baseUrl: server.url, token: ADMIN_TOKEN });
    const session = await admin.createSession();
    const client = new ProcessNotificationsClient({
      baseUrl: server.url,
      token: session.token,
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    });
    const { loop_id: loopId } = await client.openLoop(session.session_id);
    const sent = Array.from({ length: count }, () => completion(session.session_id, loopId));
    for (const notification of sent) await client.deliverCompletion(notification);
    return { client, token: session.token, sessionId: session.session_id, loopId, ids: sent.map((n) => n.command_id) };
  }

  it('answers per id in one journal transaction: consumed, not_found for unknown and other loops, consumed: false on a repeat', async () => {
    const { client, sessionId, loopId, ids } = await loopWith(3);
    const other = await client.openLoop(sessionId);
    const theirs = completion(sessionId, other.loop_id);
    await client.deliverCompletion(theirs);
    const unknown = randomUUID();
    const commits: JournalCommit[] = [];
    const watching = server.service.journalCommits$.subscribe((commit) => commits.push(commit));
    const { results } = await client.consumeMany(sessionId, loopId, [ids[0]!, unknown, ids[1]!.toUpperCase(), theirs.command_id, ids[0]!]);
    watching.unsubscribe();
    expect(commits).toEqual([expect.objectContaining({ size: 1 })]);
    const [first, second] = results.filter((result) => 'sequence' in result).map((result) => (result as { sequence: number }).sequence);
    expect(results).toEqual([
      { command_id: ids[0], consumed: true, sequence: first },
      { command_id: unknown, code: 'not_found' },
      { command_id: ids[1], consumed: true, sequence: second },
      { command_id: theirs.command_id, code: 'not_found' },
      { command_id: ids[0], consumed: false, sequence: first },
    ]);
    expect(second).toBe(first! + 1);
    // A second consume of the same ids: nothing new, the same sequences.
    await expect(client.consumeMany(sessionId, loopId, [ids[1]!, ids[0]!])).resolves.toEqual({
      results: [
        { command_id: ids[1], consumed: false, sequence: second },
        { command_id: ids[0], consumed: false, sequence: first },
      ],
    });
    expect((await client.pendingNotifications(sessionId, loopId)).notifications.map((n) => n.command_id)).toEqual([ids[2]]);
    expect((await client.pendingNotifications(sessionId, other.loop_id)).notifications).toHaveLength(1);
  });

  it(`takes 1 to ${MAX_CONSUME_BATCH} UUIDs and nothing else (400 invalid_field, command_ids)`, async () => {
    const { token, sessionId, loopId, ids } = await loopWith(1);
    const path = `/v1/sessions/${sessionId}/loops/${loopId}/process-notifications/consume`;
    const post = (body: unknown) =>
      server.http
        .post(path)
        .set('Authorization', `Bearer ${token}`)
        .send(body as object);
    for (const body of [
      {},
      { command_ids: [] },
      { command_ids: Array.from({ length: MAX_CONSUME_BATCH + 1 }, () => randomUUID()) },
      { command_ids: ['not-a-uuid'] },
      { command_ids: [42] },
      { command_ids: ids[0] },
    ]) {
      const response = await post(body).expect(400);
      expect(response.body).toMatchObject({ code: 'invalid_field', field: 'command_ids' });
    }
    await post({ command_ids: ids, extra: 1 }).expect(400);
    const bound = await post({ command_ids: [...ids, ...Array.from({ length: MAX_CONSUME_BATCH - 1 }, () => randomUUID())] }).expect(200);
    expect(bound.body.results).toHaveLength(MAX_CONSUME_BATCH);
    expect(bound.body.results[0]).toMatchObject({ command_id: ids[0], consumed: true });
  });

  it('coalesces consume() calls issued together into one request, each answered as if alone', async () => {
    const { client, sessionId, loopId, ids } = await loopWith(300);
    requests = 0;
    const unknown = randomUUID();
    const answers = await Promise.allSettled([...ids, unknown].map((id) => client.consume(sessionId, loopId, id)));
    // 301 ids: two batches of at most 256, not 301 requests.
    expect(requests).toBe(2);
    expect(answers.slice(0, -1).every((answer) => answer.status === 'fulfilled' && answer.value.consumed)).toBe(true);
    const last = answers.at(-1)!;
    expect(last.status).toBe('rejected');
    expect((last as PromiseRejectedResult).reason).toBeInstanceOf(ProblemError);
    expect((last as PromiseRejectedResult).reason).toMatchObject({ status: 404, code: 'not_found' });
    expect((await client.pendingNotifications(sessionId, loopId)).notifications).toEqual([]);
  });
});
