import fc from 'fast-check';
import type { Readable } from 'node:stream';
import type { JournalPageDto } from './dto/journal-page.dto.js';
import { journalPageBody } from './journal-page-body.js';
import { countEventLoopTurns } from '../../test/support/event-loop-turns.js';

const text = async (body: Readable): Promise<string> => {
  let all = '';
  for await (const chunk of body) all += String(chunk);
  return all;
};

const record = fc.record({
  sequence: fc.nat(),
  kind: fc.string(),
  loop_id: fc.option(fc.uuid()),
  idempotency_id: fc.string(),
  cause_command_id: fc.option(fc.uuid()),
  created_at: fc.string(),
  payload: fc.option(fc.dictionary(fc.string(), fc.jsonValue())),
});

describe('journalPageBody', () => {
  it('writes exactly the bytes of JSON.stringify(page), for pages of any size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 350 }), fc.nat(), async (records, nextAfter) => {
        const page = { records, next_after: nextAfter } as JournalPageDto;
        expect(await text(journalPageBody(page))).toBe(JSON.stringify(page));
      }),
      { numRuns: 60 },
    );
  });

  it('lets other work in between two chunks, also of two pages sent at once', async () => {
    const page = (n: number) =>
      ({
        records: Array.from({ length: n }, (_, i) => ({ sequence: i, kind: 'k', payload: { i } })),
        next_after: n,
      }) as unknown as JournalPageDto;
    const turns = countEventLoopTurns();
    const [a, b] = await Promise.all([text(journalPageBody(page(1000))), text(journalPageBody(page(500)))]);
    expect([JSON.parse(a), JSON.parse(b)]).toEqual([page(1000), page(500)]);
    // 75 chunks, one per turn: other work ran in many turns between them.
    expect(turns.stop()).toBeGreaterThanOrEqual(14);
  });
});
