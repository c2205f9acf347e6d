import type { ErrorCode } from 'nestjs-process-notifications';
import type { ProblemCode } from 'process-notifications-contract';
import type { HttpProblemCode } from './http-problem.error.js';

/**
 * Status and title of every problem `code` the API answers with (spec §8). Checked against the
 * contract's codes and the library's and the HTTP layer's, so a new error code without a status
 * here does not compile (it cannot silently become a 500); test/package/contract-package.spec.ts
 * fails when a code here is not the contract's.
 */
export const PROBLEM_TYPES = {
  invalid_json: { status: 400, title: 'Body is not valid JSON' },
  invalid_field: { status: 400, title: 'Invalid field' },
  invalid_request_target: { status: 400, title: 'Invalid request target' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  owner_mismatch: { status: 403, title: 'Owner mismatch' },
  session_not_found: { status: 404, title: 'Session not found' },
  loop_not_found: { status: 404, title: 'Loop not found' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  unsupported_engine: { status: 409, title: 'Unsupported engine' },
  already_exists: { status: 409, title: 'Already exists' },
  loop_limit_reached: { status: 409, title: 'Loop limit reached' },
  session_closed: { status: 409, title: 'Session closed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_collision: { status: 422, title: 'Idempotency collision' },
  stream_limit_reached: { status: 429, title: 'Too many event streams' },
  internal_error: { status: 500, title: 'Internal server error' },
  delivery_stopped: { status: 503, title: 'Delivery stopped' },
  journal_unavailable: { status: 503, title: 'Journal unavailable' },
  owner_unavailable: { status: 503, title: 'Session owner unavailable' },
} as const satisfies Record<ProblemCode | ErrorCode | HttpProblemCode, { readonly status: number; readonly title: string }>;

export type { ProblemCode };

/** An RFC 9457 problem document with the API's `code` extension and any others. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extension: string]: unknown;
}

/** The problem document of `code` (an unknown code is answered as `internal_error`). */
export function problem(code: string, detail: string): Problem {
  const known = Object.hasOwn(PROBLEM_TYPES, code) ? (code as ProblemCode) : 'internal_error';
  const { status, title } = PROBLEM_TYPES[known];
  return { type: `urn:process-notifications:problem:${known}`, title, status, detail, code: known };
}
