import { randomFillSync } from 'node:crypto';

/** UUIDs made per refill: node:crypto's `randomUUID()` buffers the same number. */
const BATCH = 128;
const UUID_LENGTH = 36;
// The two hex digits of every byte value, at 2 * value and 2 * value + 1.
const HEX_PAIRS = new Uint8Array(512);
for (let value = 0; value < 256; value += 1) {
  HEX_PAIRS[2 * value] = '0123456789abcdef'.charCodeAt(value >> 4);
  HEX_PAIRS[2 * value + 1] = '0123456789abcdef'.charCodeAt(value & 0x0f);
}

/**
 * Writes the UUID text of 16 random bytes (`random[from]` to `random[from + 15]`) into `text` at
 * `at`: version 4, variant 10 (RFC 9562), lower-case hex, as `randomUUID()` and `uuid`'s `v4()`
 * write it. Sets the version and variant bits in `random` itself. Exported for the property test
 * that compares it with `v4()`.
 */
export function writeUuidText(random: Uint8Array, from: number, text: Uint8Array, at: number): void {
  random[from + 6] = (random[from + 6]! & 0x0f) | 0x40;
  random[from + 8] = (random[from + 8]! & 0x3f) | 0x80;
  let offset = at;
  for (let i = 0; i < 16; i += 1) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[offset++] = 0x2d;
    const pair = random[from + i]! << 1;
    text[offset++] = HEX_PAIRS[pair]!;
    text[offset++] = HEX_PAIRS[pair + 1]!;
  }
}

/**
 * Random (version 4) UUIDs, `randomUUID()`'s equal in format and randomness (the same CSPRNG,
 * `randomFillSync`, in batches of 128), returned as flat strings. `randomUUID()` concatenates its
 * string from 20 pieces; a header value built that way is flattened again by Node's header
 * check on every response. Counted at 64 connections, a batch takes about 2 thousand of some 107
 * thousand instructions off a `/healthz` (docs/benchmarks.md). One per process (request-id.ts).
 */
export class UuidBatch {
  private readonly random = Buffer.allocUnsafe(16 * BATCH);
  private readonly text = Buffer.allocUnsafe(UUID_LENGTH * BATCH);
  private next = BATCH;

  /** A fresh UUID. */
  take(): string {
    if (this.next === BATCH) this.refill();
    const at = this.next * UUID_LENGTH;
    this.next += 1;
    return this.text.toString('latin1', at, at + UUID_LENGTH);
  }

  private refill(): void {
    randomFillSync(this.random);
    for (let i = 0; i < BATCH; i += 1) writeUuidText(this.random, 16 * i, this.text, UUID_LENGTH * i);
    this.next = 0;
  }
}
