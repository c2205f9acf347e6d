import { NetworkError } from './network.error.js';
import { ProblemError } from './problem.error.js';
import { RetryPolicy } from './retry-policy.js';

const problem = (status: number, code: string, extra: Record<string, unknown> = {}, retryAfterMs?: number): ProblemError =>
  new ProblemError(
    { type: `urn:process-notifications:problem:${code}`, title: code, status, detail: `${code} detail`, code, ...extra },
    retryAfterMs,
  );

describe('RetryPolicy', () => {
  // The list of spec section 10: what is retried with the identical body.
  it.each([
    ['delivery_stopped / inbox_full', problem(503, 'delivery_stopped', { cause: 'inbox_full', disposition: 'stopped' })],
    ['delivery_stopped / misrouted', problem(503, 'delivery_stopped', { cause: 'misrouted', disposition: 'stopped' })],
    ['owner_unavailable', problem(503, 'owner_unavailable')],
    ['journal_unavailable', problem(503, 'journal_unavailable')],
    ['429', problem(429, 'http_429')],
    ['500', problem(500, 'internal_error')],
    ['502 from a proxy', ProblemError.fromResponse(502, '<html>bad gateway</html>')],
    ['a network error', new NetworkError('cannot reach')],
  ])('retries %s', (_name, error) => {
    expect(new RetryPolicy().isRetryable(error)).toBe(true);
  });

  it.each([
    [
      'delivery_stopped / loop_stopped (final, journaled)',
      problem(503, 'delivery_stopped', { cause: 'loop_stopped', disposition: 'stopped' }),
    ],
    ['invalid_field', problem(400, 'invalid_field', { field: 'process_handle' })],
    ['invalid_json', problem(400, 'invalid_json')],
    ['unauthorized', problem(401, 'unauthorized')],
    ['forbidden', problem(403, 'forbidden')],
    ['owner_mismatch', problem(403, 'owner_mismatch')],
    ['session_not_found', problem(404, 'session_not_found')],
    ['loop_not_found', problem(404, 'loop_not_found', { disposition: 'stopped' })],
    ['unsupported_engine', problem(409, 'unsupported_engine', { disposition: 'stopped' })],
    ['session_closed (final: the session takes no more writes)', problem(409, 'session_closed')],
    ['payload_too_large', problem(413, 'payload_too_large')],
    ['unsupported_media_type', problem(415, 'unsupported_media_type')],
    ['idempotency_collision', problem(422, 'idempotency_collision', { disposition: 'collision', sequence: 3 })],
    ['an error that is no answer at all', new Error('bug')],
  ])('does not retry %s', (_name, error) => {
    expect(new RetryPolicy().isRetryable(error)).toBe(false);
  });

  it('draws the wait uniformly below a ceiling that doubles per attempt up to the cap (full jitter)', () => {
    const top = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999999 });
    expect([1, 2, 3, 4, 5, 9].map((attempt) => top.delayMs(attempt))).toEqual([99, 199, 399, 799, 999, 999]);
    const bottom = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 });
    expect(bottom.delayMs(4)).toBe(0);
    const middle = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 });
    expect(middle.delayMs(3)).toBe(200);
  });

  it('never waits less than the Retry-After the server asked for', () => {
    const policy = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 });
    const stopped = problem(503, 'delivery_stopped', { cause: 'inbox_full' }, 5000);
    expect(policy.delayMs(1, stopped)).toBe(5000);
    const short = problem(503, 'owner_unavailable', {}, 10);
    expect(policy.delayMs(5, short)).toBe(500);
  });

  it('reads Retry-After as delay-seconds or as an HTTP-date against the injected clock', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const policy = new RetryPolicy({ now: () => now });
    expect(policy.parseRetryAfter('1')).toBe(1000);
    expect(policy.parseRetryAfter(' 12 ')).toBe(12000);
    expect(policy.parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT')).toBe(7000);
    expect(policy.parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT')).toBe(0);
    expect(policy.parseRetryAfter(null)).toBeUndefined();
    expect(policy.parseRetryAfter('soon')).toBeUndefined();
  });

  it('stops after maxAttempts attempts in all', () => {
    const policy = new RetryPolicy({ maxAttempts: 3 });
    const error = new NetworkError('down');
    expect([1, 2, 3].map((attempt) => policy.shouldRetry(error, attempt))).toEqual([true, true, false]);
    expect(new RetryPolicy().shouldRetry(error, 1_000_000)).toBe(true);
  });

  it('the default sleep ends early, rejecting, when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = new RetryPolicy().sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
