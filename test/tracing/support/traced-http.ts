import { SERVER_ADMIN_TOKEN } from '../../support/server-process.js';

/** A JSON answer of the real server. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs `body` as JSON with the token and any extra `headers` (e.g. `traceparent`). */
export async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A session with one native loop, opened on the real server at `url`. */
export async function openSession(url: string): Promise<{ sessionId: string; loopId: string; token: string }> {
  const session = await post(`${url}/v1/sessions`, SERVER_ADMIN_TOKEN, {});
  const { session_id: sessionId, token } = session.body as { session_id: string; token: string };
  const loop = await post(`${url}/v1/sessions/${sessionId}/loops`, token, {});
  return { sessionId, token, loopId: loop.body.loop_id as string };
}
