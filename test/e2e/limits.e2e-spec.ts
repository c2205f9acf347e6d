import { admin, bearer, createHttpTestApp, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';
import { expectProblem } from './support/problem.js';
import { openSse, type SseConnection } from './support/sse-client.js';

// One session must not be able to starve the others: its loops and open streams are capped.
describe('REST API v1: per-session limits', () => {
  let t: HttpTestApp;
  beforeEach(async () => (t = await createHttpTestApp({ maxLoopsPerSession: 2, maxStreamsPerSession: 1 })));
  afterEach(() => t.close());

  it('refuses a loop past PN_MAX_LOOPS_PER_SESSION with 409 loop_limit_reached, per session', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    await t.http.post(`/v1/sessions/${sessionId}/loops`).set(bearer(token)).expect(201);
    const third = await t.http.post(`/v1/sessions/${sessionId}/loops`).set(bearer(token));
    expectProblem(third, 409, 'loop_limit_reached');
    // The refused loop does not exist, and the session's own answer stays bounded.
    const session = await t.http.get(`/v1/sessions/${sessionId}`).set(bearer(token)).expect(200);
    expect(session.body.loops).toHaveLength(2);
    // Another session is not affected.
    const other = await openSessionWithLoop(t);
    await t.http.post(`/v1/sessions/${other.sessionId}/loops`).set(admin).expect(201);
  });

  it('refuses an event stream past PN_MAX_STREAMS_PER_SESSION with 429 and Retry-After, until one closes', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const url = `${t.url}/v1/sessions/${sessionId}/events`;
    const first = await openSse(url, bearer(token));
    expect(first.status).toBe(200);
    const refused = await t.http.get(`/v1/sessions/${sessionId}/events`).set(bearer(token));
    expectProblem(refused, 429, 'stream_limit_reached');
    expect(refused.headers['retry-after']).toBe('1');
    // One count per session however its id is spelled: the path's id is normalised where it enters.
    expectProblem(await t.http.get(`/v1/sessions/${sessionId.toUpperCase()}/events`).set(bearer(token)), 429, 'stream_limit_reached');
    // Another session's stream is not affected.
    const other = await openSessionWithLoop(t);
    const otherStream = await openSse(`${t.url}/v1/sessions/${other.sessionId}/events`, bearer(other.token));
    expect(otherStream.status).toBe(200);
    otherStream.close();

    first.close();
    // The server sees the close asynchronously: the next stream opens once it has.
    let next = await openSse(url, bearer(token));
    // A deadline, not a count of attempts: how many fit before the server notices depends on the machine's load.
    for (const deadline = Date.now() + 10_000; next.status === 429 && Date.now() < deadline;) {
      next.close();
      await new Promise((resolve) => setTimeout(resolve, 10));
      next = await openSse(url, bearer(token));
    }
    expect(next.status).toBe(200);
    next.close();
  });
});

// Issue 45: a session's loop streams are its streams too. Counted per loop, one session could hold
// PN_MAX_STREAMS_PER_SESSION streams of every loop it has (16,000 with 1,000 loops).
describe("REST API v1: a session's streams, its loops' included", () => {
  let t: HttpTestApp;
  beforeEach(async () => (t = await createHttpTestApp({ maxStreamsPerSession: 16, maxAdminStreams: 4 })));
  afterEach(() => t.close());

  it('the 17th stream over the session and 16 of its loops is refused with 429 and Retry-After, until one closes', async () => {
    const { sessionId, token } = await openSessionWithLoop(t);
    const loops: string[] = [];
    for (let i = 0; i < 16; i += 1)
      loops.push((await t.http.post(`/v1/sessions/${sessionId}/loops`).set(admin).send({}).expect(201)).body.loop_id);
    const loopEvents = (loopId: string) => `${t.url}/v1/sessions/${sessionId}/loops/${loopId}/events`;
    const open: SseConnection[] = [await openSse(`${t.url}/v1/sessions/${sessionId}/events`, bearer(token))];
    try {
      // The session's own stream and one stream on each of 15 loops: 16 in all.
      for (const loopId of loops.slice(0, 15)) open.push(await openSse(loopEvents(loopId), bearer(token)));
      expect(open.map((stream) => stream.status)).toEqual(Array(16).fill(200));

      // A 17th on a loop that has none yet, on one that has one, or on the session: all refused.
      for (const path of [`loops/${loops[15]}/events`, `loops/${loops[0]}/events`, 'events']) {
        const refused = await t.http.get(`/v1/sessions/${sessionId}/${path}`).set(bearer(token));
        expectProblem(refused, 429, 'stream_limit_reached');
        expect(refused.headers['retry-after']).toBe('1');
      }
      // The admin token's streams (the console's) have their own bound, loops' streams included.
      for (const loopId of loops.slice(0, 4)) open.push(await openSse(loopEvents(loopId), admin));
      expect(open.slice(16).map((stream) => stream.status)).toEqual([200, 200, 200, 200]);
      expectProblem(await t.http.get(`/v1/sessions/${sessionId}/loops/${loops[4]}/events`).set(admin), 429, 'stream_limit_reached');

      // Closing one loop's stream gives its place to any stream of the session.
      open[3]!.close();
      let next = await openSse(loopEvents(loops[15]!), bearer(token));
      // A deadline, not a count of attempts: how many fit before the server notices depends on the machine's load.
      for (const deadline = Date.now() + 10_000; next.status === 429 && Date.now() < deadline;) {
        next.close();
        await new Promise((resolve) => setTimeout(resolve, 10));
        next = await openSse(loopEvents(loops[15]!), bearer(token));
      }
      open.push(next);
      expect(next.status).toBe(200);
      expectProblem(await t.http.get(`/v1/sessions/${sessionId}/events`).set(bearer(token)), 429, 'stream_limit_reached');
    } finally {
      for (const stream of open) stream.close();
    }
  });
});
