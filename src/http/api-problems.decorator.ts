import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath, type HeadersObject } from '@nestjs/swagger';
import { PROBLEM_TYPES, type ProblemCode } from './problem-types.js';
import { ProblemDto } from './problem.dto.js';
import { ALLOW_RESPONSE_HEADER, REPLAYED_RESPONSE_HEADER, RETRY_AFTER_RESPONSE_HEADER } from './api-response-headers.js';

/** Media type of every error answer (RFC 9457). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

// Every route can fail unexpectedly, and its path answers a method it does not have with a 405.
const ALWAYS: readonly ProblemCode[] = ['method_not_allowed', 'internal_error'];

/** What any route that reads a JSON body can answer about the body. */
export const BODY_PROBLEMS: readonly ProblemCode[] = ['invalid_json', 'payload_too_large', 'unsupported_media_type', 'invalid_field'];

/** What any route behind a bearer token can answer about the token. */
export const AUTH_PROBLEMS: readonly ProblemCode[] = ['unauthorized', 'forbidden'];

// Every 429 and 503 says when to retry, a 405 which methods the path has; a stopped delivery that
// replays one already journaled says so.
function headersOf(status: number, codes: readonly ProblemCode[]): HeadersObject | undefined {
  const headers: HeadersObject = {
    ...(status === 429 || status === 503 ? RETRY_AFTER_RESPONSE_HEADER : {}),
    ...(codes.includes('method_not_allowed') ? ALLOW_RESPONSE_HEADER : {}),
    ...(codes.includes('delivery_stopped') ? REPLAYED_RESPONSE_HEADER : {}),
  };
  return Object.keys(headers).length === 0 ? undefined : headers;
}

// OpenAPI 3.0 has no answer of a path, only of an operation: each operation documents its path's.
const METHOD_NOT_ALLOWED =
  " Never this operation's answer: its path answers so to a method it has no operation for, `Allow` listing the methods it has.";

/**
 * Documents the error answers of a route in its OpenAPI operation: one response per status,
 * as `application/problem+json` with the {@link ProblemDto} schema, naming its codes in the
 * description and giving one example per code.
 * @param codes the codes the route can answer with (spec §8); `internal_error` is always added, and
 *   `method_not_allowed` (what its path answers to another method, with `Allow`)
 */
export function ApiProblems(...codes: ProblemCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set([...codes, ...ALWAYS])) {
    const { status } = PROBLEM_TYPES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ApiExtraModels(ProblemDto),
    ...[...byStatus].map(([status, ofStatus]) =>
      ApiResponse({
        status,
        description: `Problem document; \`code\` is ${ofStatus.map((code) => `\`${code}\``).join(' or ')}.${status === 405 ? METHOD_NOT_ALLOWED : ''}`,
        headers: headersOf(status, ofStatus),
        content: {
          [PROBLEM_MEDIA_TYPE]: {
            schema: { $ref: getSchemaPath(ProblemDto) },
            examples: Object.fromEntries(
              ofStatus.map((code) => [
                code,
                {
                  summary: PROBLEM_TYPES[code].title,
                  value: {
                    type: `urn:process-notifications:problem:${code}`,
                    title: PROBLEM_TYPES[code].title,
                    status,
                    detail: '...',
                    code,
                  },
                },
              ]),
            ),
          },
        },
      }),
    ),
  );
}
