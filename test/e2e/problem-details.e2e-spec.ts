import { admin, bearer, createHttpTestApp, openSessionWithLoop, type HttpTestApp } from './support/http-test-app.js';
import { expectProblem } from './support/problem.js';

// What a refused caller reads in the problem document (§8: every error has a `detail`) and in
// its headers, beyond status and code, which error-table.e2e-spec.ts checks.
describe('REST API v1: problem details a client can act on', () => {
  let t: HttpTestApp;
  beforeAll(async () => {
    t = await createHttpTestApp();
  });
  afterAll(() => t.close());

  it('a refused credential is explained in `detail` and, being final, carries no Retry-After', async () => {
    const mine = await openSessionWithLoop(t);
    const other = await openSessionWithLoop(t);
    const refusals: Array<[credential: string, headers: Record<string, string>, status: number, code: string]> = [
      ['no token', {}, 401, 'unauthorized'],
      ['an unknown token', bearer(`${mine.token}x`), 401, 'unauthorized'],
      ["another session's token", bearer(other.token), 403, 'forbidden'],
    ];
    for (const [credential, headers, status, code] of refusals) {
      const response = await t.http.get(`/v1/sessions/${mine.sessionId}`).set(headers);
      expectProblem(response, status, code);
      expect({ credential, detail: response.body.detail, retryAfter: response.headers['retry-after'] }).toEqual({
        credential,
        detail: expect.stringMatching(/token/i),
        retryAfter: undefined,
      });
    }
    // A session token on an admin-only route (creating a session).
    const adminOnly = await t.http.post('/v1/sessions').set(bearer(mine.token)).send({});
    expectProblem(adminOnly, 403, 'forbidden');
    expect(adminOnly.body.detail).toMatch(/admin/i);
    expect(adminOnly.headers['retry-after']).toBeUndefined();
  });

  it('405 names the method refused and the methods the path answers to, as in Allow', async () => {
    const { sessionId } = await openSessionWithLoop(t);
    const response = await t.http.put(`/v1/sessions/${sessionId}`).set(admin);
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body.detail).toContain('PUT');
    expect(response.body.detail).toContain('GET, HEAD');
  });
});
