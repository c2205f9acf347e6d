import type { Problem, ProblemDisposition, StopCause } from 'process-notifications-contract';

/**
 * An error answer of the API: its RFC 9457 problem document, typed. An answer that is not a
 * problem document (a proxy's HTML page, say) gets the code `http_<status>`.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  /** The HTTP status. */
  readonly status: number;
  /** The stable problem code (spec sections 8 and 9), e.g. `delivery_stopped`. */
  readonly code: string;
  /** The human-readable explanation the server gave. */
  readonly detail: string;
  /** The failing field of an `invalid_field` answer. */
  readonly field: string | undefined;
  /** Why delivery stopped (`delivery_stopped` only). */
  override readonly cause: StopCause | undefined;
  /** Sequence of the original record (`idempotency_collision`). */
  readonly sequence: number | undefined;
  /** `stopped` or `collision` where the contract names a disposition. */
  readonly disposition: ProblemDisposition | undefined;
  /** How long the server asked to wait (its `Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The whole problem document. */
  readonly problem: Problem;

  constructor(problem: Problem, retryAfterMs?: number) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.field = problem.field;
    this.cause = problem.cause;
    this.sequence = problem.sequence;
    this.disposition = problem.disposition;
    this.retryAfterMs = retryAfterMs;
  }

  /** Builds the error from a response's status and body text, whatever the body is. */
  static fromResponse(status: number, bodyText: string, retryAfterMs?: number): ProblemError {
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    if (isProblem(body)) return new ProblemError(body, retryAfterMs);
    const detail = bodyText.trim().slice(0, 200) || `HTTP ${status}`;
    return new ProblemError({ type: 'about:blank', title: `HTTP ${status}`, status, detail, code: `http_${status}` }, retryAfterMs);
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const candidate = body as Record<string, unknown>;
  return typeof candidate.status === 'number' && typeof candidate.code === 'string' && typeof candidate.detail === 'string';
}
