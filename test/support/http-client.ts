import { Agent, request } from 'node:http';

/** What a server answered, or how the connection failed (`error` is the Node error code). */
export interface HttpAnswer {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
  error?: string;
}

/**
 * One JSON request over `agent` (keep-alive connections are reused, as a real client's are);
 * never throws: a failed connection is an answer with `error`.
 */
export function jsonRequest(
  agent: Agent | undefined,
  url: string,
  method: string,
  token: string | undefined,
  body?: unknown,
  /** Gives up (error `ETIMEDOUT`) when no answer came in this time. */
  timeoutMs?: number,
): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(url, {
      method,
      agent,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // Not JSON: kept as text.
        }
        resolve({ status: res.statusCode, headers: res.headers, body: parsed });
      });
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    if (timeoutMs !== undefined) {
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
    }
    req.end(payload);
  });
}
