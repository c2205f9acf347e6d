import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { JOURNAL_KINDS } from '../../vocabulary/process-vocabulary.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import type { JournalRecordEntity } from './journal-record.entity.js';
import { JournalRows } from './journal-rows.js';
import { driverErrorOf } from '../dialects/store-failure.js';

type Draft = Omit<JournalRecordEntity, 'sequence'>;
type Operation = { insert: Omit<Draft, 'sessionId'> } | { find: string };

// Idempotency ids from a small pool, so finds hit and inserts collide (the unique index).
const IDS = ['a', 'b', 'c', randomUUID(), 'ü-ß-✓'];
const text = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength });

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    insert: fc.record({
      loopId: fc.option(fc.uuid(), { nil: null }),
      kind: fc.constantFrom(...JOURNAL_KINDS),
      idempotencyId: fc.constantFrom(...IDS),
      fingerprint: fc.stringMatching(/^[0-9a-f]{64}$/),
      // Unicode, long, JSON-looking and the dropped payload's 'null'.
      payload: fc.oneof(
        text(200),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.constant('null'),
        fc.string({ minLength: 1_000, maxLength: 5_000 }),
      ),
      causeCommandId: fc.option(fc.uuid(), { nil: null }),
      createdAt: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    }),
  }),
  fc.record({ find: fc.oneof(fc.constantFrom(...IDS), text(10)) }),
);

// What a call answered: the record (class and fields), nothing, or the store's error.
async function outcomeOf(call: () => Promise<JournalRecordEntity | undefined>): Promise<unknown> {
  try {
    const record = await call();
    return record === undefined ? { none: true } : { prototype: Object.getPrototypeOf(record) as unknown, entries: Object.entries(record) };
  } catch (error) {
    const driverError = driverErrorOf(error);
    return { error: { code: driverError?.code, message: driverError?.message } };
  }
}

// The direct better-sqlite3 statements (find, insert) against TypeORM's manager.query, each on
// its own in-memory journal: the same operations must answer the same records, the same errors,
// and leave the same rows.
describe('JournalRows direct SQLite statements', () => {
  let direct: DataSource;
  let library: DataSource;

  beforeAll(async () => {
    direct = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    library = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
  });

  afterAll(async () => {
    await direct.destroy();
    await library.destroy();
  });

  it('answer and store exactly what TypeORM’s manager.query does, for generated records and lookups', async () => {
    const paths = [
      { dataSource: () => direct, rows: () => new JournalRows(direct, true) },
      { dataSource: () => library, rows: () => new JournalRows(library, false) },
    ];
    const seen = { found: 0, collided: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        // Each run its own session, so runs do not see each other's records.
        const sessionId = randomUUID();
        const [fast, reference] = paths.map(({ dataSource, rows }) => ({ dataSource: dataSource(), rows: rows() }));
        for (const op of operations) {
          const answers = [];
          for (const { dataSource, rows } of [fast!, reference!]) {
            answers.push(
              await outcomeOf(() =>
                dataSource.transaction((manager) =>
                  'insert' in op ? rows.insert(manager, { ...op.insert, sessionId }) : rows.find(manager, sessionId, op.find),
                ),
              ),
            );
          }
          expect(answers[0]).toStrictEqual(answers[1]);
          if ('error' in (answers[0] as object)) seen.collided += 1;
          else if ('find' in op && !('none' in (answers[0] as object))) seen.found += 1;
        }
        const stored = (dataSource: DataSource) =>
          dataSource.query('SELECT * FROM pn_journal WHERE session_id = ? ORDER BY sequence', [sessionId]);
        const [fastRows, referenceRows] = await Promise.all([stored(direct), stored(library)]);
        // Sequences are per database: compare everything but them, and their order.
        const strip = (rows: Array<Record<string, unknown>>) => rows.map(({ sequence: _sequence, ...row }) => row);
        expect(strip(fastRows as Array<Record<string, unknown>>)).toStrictEqual(strip(referenceRows as Array<Record<string, unknown>>));
      }),
      { numRuns: 150 },
    );
    expect(seen.found).toBeGreaterThan(20);
    expect(seen.collided).toBeGreaterThan(20);
  });
});
