import type { Response } from 'supertest';

/** Asserts that a response is an RFC 9457 problem document with this status and code. */
export function expectProblem(response: Response, status: number, code: string, extensions: Record<string, unknown> = {}): void {
  expect({ status: response.status, contentType: response.headers['content-type'] }).toEqual({
    status,
    contentType: 'application/problem+json',
  });
  const body = JSON.parse(response.text) as Record<string, unknown>;
  expect(body).toEqual({
    type: `urn:process-notifications:problem:${code}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
    ...extensions,
  });
}
