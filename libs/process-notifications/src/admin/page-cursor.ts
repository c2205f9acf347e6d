import { ValidationError } from '../errors/validation.error.js';
import { isCanonicalUuid } from '../validation/canonical-uuid.decorator.js';

/** What a list is ordered by (newest first): creation time, then ids. */
export type PagePosition = readonly [createdAt: string, ...ids: string[]];

// A creation time as the library writes it (Date.prototype.toISOString, UTC).
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,512}$/;

/**
 * The opaque `cursor` of an admin list: the last item's position, tagged with the list it
 * belongs to, as base64url JSON. Clients only pass it back; its form may change.
 */
export class PageCursor {
  /** @param list names the list, so a cursor of another list is refused */
  constructor(
    private readonly list: string,
    private readonly ids: number,
  ) {}

  encode(position: PagePosition): string {
    return Buffer.from(JSON.stringify([this.list, ...position])).toString('base64url');
  }

  /** The position a cursor stands for; anything this list never gave out is field `cursor`. */
  decode(cursor: string): PagePosition {
    let parsed: unknown;
    try {
      const bytes = BASE64URL.test(cursor) ? Buffer.from(cursor, 'base64url') : undefined;
      // The decoder skips what it cannot use (a stray last character): only its own encoding counts.
      parsed = bytes && bytes.toString('base64url') === cursor ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    if (
      !Array.isArray(parsed) ||
      parsed.length !== 2 + this.ids ||
      parsed[0] !== this.list ||
      typeof parsed[1] !== 'string' ||
      !CREATED_AT.test(parsed[1]) ||
      !parsed.slice(2).every((id) => isCanonicalUuid(id) && id === id.toLowerCase())
    ) {
      throw new ValidationError('cursor', 'cursor is not one this list gave out; pass next_cursor of the previous page as it is');
    }
    return parsed.slice(1) as unknown as PagePosition;
  }
}
