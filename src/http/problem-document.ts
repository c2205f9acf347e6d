import type { FastifyRequest } from 'fastify';
import { problemAnswer } from './problem-table.js';
import { problem, type Problem } from './problem-types.js';

/** How one error is answered: its status, its headers (in the order they are set) and its problem document. */
export interface ProblemDocument {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Problem;
}

/**
 * The answer to `exception` by the problem table's rows: the problem details filter sends it,
 * and the batch delivery puts it in a notification's own result. An error no row takes is told
 * to `unexpected` (to be logged) and answered with a generic 500 that reveals nothing about it.
 */
export function problemDocumentOf(exception: unknown, request: FastifyRequest, unexpected: (exception: unknown) => void): ProblemDocument {
  const answer = problemAnswer(exception, request);
  if (answer === undefined) {
    unexpected(exception);
    const body = problem('internal_error', 'An unexpected error occurred.');
    return { status: body.status, headers: {}, body };
  }
  const body = { ...problem(answer.code, answer.detail), ...answer.extensions };
  return { status: body.status, headers: answer.headers ?? {}, body };
}
