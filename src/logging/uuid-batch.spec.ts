import fc from 'fast-check';
import { validate, version, v4 } from 'uuid';
import { UuidBatch, writeUuidText } from './uuid-batch.js';

describe('UuidBatch', () => {
  it('writes the text of any 16 bytes as uuid v4() writes it from the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.nat(40), fc.nat(40), (bytes, from, at) => {
        const random = new Uint8Array(from + 16);
        random.set(bytes, from);
        const text = new Uint8Array(at + 36);
        writeUuidText(random, from, text, at);
        expect(Buffer.from(text.subarray(at)).toString('latin1')).toBe(v4({ random: Uint8Array.from(bytes) }));
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives valid, distinct version 4 UUIDs across many refills', () => {
    const batch = new UuidBatch();
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i += 1) {
      const id = batch.take();
      expect(validate(id) && version(id) === 4).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });

  it('draws every digit at every random position, and every variant', () => {
    const batch = new UuidBatch();
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    // 4,000 draws: the chance that one of 16 digits never comes at one of 30 positions is below 1e-100.
    for (let i = 0; i < 4_000; i += 1) [...batch.take()].forEach((digit, position) => digits[position]!.add(digit));
    const fixed = new Map([
      [8, '-'],
      [13, '-'],
      [14, '4'],
      [18, '-'],
      [23, '-'],
    ]);
    digits.forEach((seen, position) => {
      if (fixed.has(position)) expect([...seen]).toEqual([fixed.get(position)]);
      else if (position === 19) expect([...seen].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(seen.size).toBe(16);
    });
  });
});
