import { BadAnswerError } from './bad-answer.error.js';

/**
 * The whole body of a `fetch` answer as text, read chunk by chunk up to `maxBytes`: past them it
 * cancels the body and rejects with a {@link BadAnswerError} `answer_too_large`, where
 * `response.text()` would read whatever the server sends into memory.
 */
export async function readAnswerText(response: Response, url: string, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '');
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw BadAnswerError.answerTooLarge(url, maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw BadAnswerError.answerTooLarge(url, maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(whole);
}
