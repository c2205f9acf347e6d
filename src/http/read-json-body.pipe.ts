import { Injectable, type PipeTransform } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { HttpProblemError } from './http-problem.error.js';
import { parseStrictJson } from './strict-json.js';
import { BODY_TOO_LARGE, bufferedBody } from './buffered-body.js';
import { isJsonContentType, MAX_BODY_BYTES } from './json-media-type.js';

export { MAX_BODY_BYTES };

function tooLarge(): HttpProblemError {
  return new HttpProblemError('payload_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
}

// Stops collecting past the limit but lets the rest drain, so the client still reads the 413.
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(tooLarge());
      } else {
        chunks.push(chunk);
      }
    });
    // A client that aborts its upload is a bad request, not a server error: no stack trace.
    const endedEarly = () => reject(new HttpProblemError('invalid_json', 'The body ended early.'));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', endedEarly);
    request.on('close', () => {
      if (!request.readableEnded) endedEarly();
    });
  });
}

/**
 * Reads and parses the JSON body of a request itself (Nest's body parser is off): at most
 * {@link MAX_BODY_BYTES} (413 `payload_too_large`), a JSON content type when there is a body
 * (415 `unsupported_media_type`), strict UTF-8 JSON without duplicate keys or deep nesting
 * (400 `invalid_json`). An empty body is `undefined`.
 */
@Injectable()
export class ReadJsonBodyPipe implements PipeTransform<IncomingMessage, Promise<unknown>> {
  async transform(request: IncomingMessage): Promise<unknown> {
    // Read already when the request was about to be forwarded to its session's owner.
    const buffered = bufferedBody(request);
    if (buffered === BODY_TOO_LARGE) throw tooLarge();
    if (buffered === undefined && Number(request.headers['content-length']) > MAX_BODY_BYTES) {
      request.resume();
      throw tooLarge();
    }
    const bytes = buffered ?? (await readBody(request));
    if (bytes.length === 0) return undefined;
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (!isJsonContentType(request.headers['content-type']) || (encoding && encoding !== 'identity')) {
      throw new HttpProblemError('unsupported_media_type', 'The body must be application/json in UTF-8, not encoded.');
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new HttpProblemError('invalid_json', 'The body is not valid UTF-8.');
    }
    let body: unknown;
    try {
      body = parseStrictJson(text);
    } catch (error) {
      if (error instanceof SyntaxError) throw new HttpProblemError('invalid_json', `The body is not valid JSON: ${error.message}.`);
      throw error;
    }
    return body;
  }
}
