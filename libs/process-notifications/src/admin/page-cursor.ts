import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors/validation.error.js';
import { isCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { normaliseId } from '../validation/normalise-id.js';

/** What a list is ordered by (newest first): creation time, then ids. */
export type PagePosition = readonly [createdAt: string, ...ids: string[]];

// A creation time as the library writes it (Date.prototype.toISOString, UTC).
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,512}$/;

/**
 * The opaque `cursor` of an admin list: the last item's position, tagged with the list it
 * belongs to, as base64url JSON, sealed with an HMAC-SHA256 of it (`<position>.<mac>`), so that a
 * cursor edited and encoded again is refused like any other this list never gave out. Clients only
 * pass it back; its form may change.
 */
export class PageCursor {
  /**
   * @param list names the list, so a cursor of another list is refused
   * @param key the HMAC key: nodes that share a database share it, as a client may pass a cursor
   * one node gave out to another
   */
  constructor(
    private readonly list: string,
    private readonly ids: number,
    private readonly key: Buffer,
  ) {}

  encode(position: PagePosition): string {
    const text = Buffer.from(JSON.stringify([this.list, ...position])).toString('base64url');
    return `${text}.${this.mac(text).toString('base64url')}`;
  }

  /**
   * The position a cursor stands for; anything this list never gave out (malformed, of another
   * list, edited, or sealed with another key) is field `cursor`.
   */
  decode(cursor: string): PagePosition {
    let parsed: unknown;
    try {
      const dot = cursor.indexOf('.');
      const text = cursor.slice(0, dot);
      const seal = Buffer.from(cursor.slice(dot + 1), 'base64url');
      const mac = this.mac(text);
      // Checked first, in constant time: nothing of an unsealed cursor is read.
      const sealed = dot > 0 && seal.length === mac.length && timingSafeEqual(seal, mac);
      const bytes = sealed && BASE64URL.test(text) ? Buffer.from(text, 'base64url') : undefined;
      // The decoder skips what it cannot use (a stray last character): only its own encoding counts.
      parsed = bytes && bytes.toString('base64url') === text ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    if (
      !Array.isArray(parsed) ||
      parsed.length !== 2 + this.ids ||
      parsed[0] !== this.list ||
      typeof parsed[1] !== 'string' ||
      !CREATED_AT.test(parsed[1]) ||
      !parsed.slice(2).every((id) => isCanonicalUuid(id) && id === normaliseId(id))
    ) {
      throw new ValidationError('cursor', 'cursor is not one this list gave out; pass next_cursor of the previous page as it is');
    }
    return parsed.slice(1) as unknown as PagePosition;
  }

  private mac(text: string): Buffer {
    return createHmac('sha256', this.key).update(text).digest();
  }
}
