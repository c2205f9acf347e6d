// The request-body rules of the API, free of Nest, so the bench's framework-free floor uses them too.
import { MAX_BODY_BYTES } from 'process-notifications-contract';

// The largest request body accepted is the contract's bound (section 8).
export { MAX_BODY_BYTES };

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/** True for a JSON media type (`application/json`, `application/*+json`) in UTF-8 or without a charset. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [mediaType, ...parameters] = header.split(';').map((part) => part.trim().toLowerCase());
  if (!JSON_MEDIA_TYPE.test(mediaType!)) return false;
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length);
  return charset === undefined || charset.replace(/"/g, '') === 'utf-8';
}
