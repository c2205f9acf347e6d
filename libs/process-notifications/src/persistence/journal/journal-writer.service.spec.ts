import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { AlreadyExistsError } from '../../errors/already-exists.error.js';
import { IdempotencyCollisionError } from '../../errors/idempotency-collision.error.js';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalRecord } from '../../model/journal-record.interface.js';
import type { JournalDraft } from './journal-draft.interface.js';
import { JournalWriter, type JournalCommit } from './journal-writer.service.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { notificationDraft } from '../../../../../test/support/notification-fixture.js';
import { managerOf } from '../transaction/store-transaction.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

const draft = (idempotencyId?: string, processHandle = 'proc-1', sessionId: string = SESSION): JournalDraft =>
  notificationDraft({ sessionId, loopId: LOOP, idempotencyId, processHandle });

// Settles a promise into a value or an error, so one batch's answers can be inspected together.
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('JournalWriter (real in-memory SQLite)', () => {
  let dataSource: DataSource;
  let writer: JournalWriter;
  let published: JournalRecord[];
  let commits: JournalCommit[];

  beforeEach(async () => {
    dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    published = [];
    writer.records$.subscribe((record) => published.push(record));
    commits = [];
    writer.commits$.subscribe((commit) => commits.push(commit));
  });

  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  const rows = async () => Number(((await dataSource.query('SELECT COUNT(*) AS n FROM pn_journal')) as Array<{ n: number }>)[0]!.n);

  it('commits the appends of one tick in one transaction, each caller with its own record', async () => {
    const drafts = Array.from({ length: 64 }, () => draft());
    const results = await Promise.all(drafts.map((d) => writer.append(d)));
    expect(commits.map((c) => c.size)).toEqual([64]);
    expect(results.map((r) => r.appended)).toEqual(drafts.map(() => true));
    expect(results.map((r) => r.record.idempotencyId)).toEqual(drafts.map((d) => d.idempotencyId));
    expect(new Set(results.map((r) => r.record.sequence)).size).toBe(64);
    expect(published.map((r) => r.sequence)).toEqual(results.map((r) => r.record.sequence));
    expect(await rows()).toBe(64);
  });

  it('gives every caller of a failing batch its own answer, and publishes only what committed', async () => {
    const first = draft();
    const other = draft();
    // All queued in one tick: one batch, which the failing jobs roll back.
    const answers = await Promise.all([
      settle(writer.append(first)),
      settle(
        writer.write(() => {
          throw new Error('boom');
        }),
      ),
      settle(writer.append(other)),
      settle(writer.write((store) => managerOf(store).query('INSERT INTO no_such_table VALUES (1)'))),
      settle(writer.append(first)),
      settle(
        writer.write(() => {
          throw new AlreadyExistsError('loop', LOOP);
        }),
      ),
      settle(writer.append(draft(first.idempotencyId, 'another-handle'))),
      settle(writer.read((store) => managerOf(store).query('SELECT 1 AS one'))),
    ]);
    // The batch rolled back, then each of its eight jobs ran alone: the six that did not fail committed.
    expect(commits.map((c) => c.size)).toEqual([1, 1, 1, 1, 1, 1]);

    const [appendFirst, boom, appendOther, sqlFailure, retryFirst, domainError, collision, read] = answers;
    const firstRecord = (appendFirst as { value: { record: JournalRecord } }).value.record;
    expect(appendFirst).toEqual({ value: { record: firstRecord, appended: true } });
    expect(appendOther).toMatchObject({ value: { appended: true, record: { idempotencyId: other.idempotencyId } } });
    expect(retryFirst).toMatchObject({ value: { appended: false, record: { sequence: firstRecord.sequence } } });
    expect(read).toEqual({ value: [{ one: 1 }] });

    expect((boom as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
    expect((boom as { error: Error }).error.cause).toEqual(new Error('boom'));
    expect((sqlFailure as { error: unknown }).error).toBeInstanceOf(JournalUnavailableError);
    expect((domainError as { error: unknown }).error).toBeInstanceOf(AlreadyExistsError);
    expect((collision as { error: unknown }).error).toBeInstanceOf(IdempotencyCollisionError);
    expect((collision as { error: unknown }).error).toMatchObject({
      idempotencyId: first.idempotencyId,
      sequence: firstRecord.sequence,
      disposition: 'collision',
    });

    expect(await rows()).toBe(2);
    expect(published.map((r) => r.idempotencyId)).toEqual([first.idempotencyId, other.idempotencyId]);
  });

  it('keys idempotency by session: the same id in another session is a new record', async () => {
    const id = randomUUID();
    const a = await writer.append(draft(id));
    const b = await writer.append(draft(id, 'proc-1', randomUUID()));
    expect(a.appended && b.appended).toBe(true);
    expect(b.record.sequence).toBeGreaterThan(a.record.sequence);
  });

  it('fingerprints kind and payload only: an identical retry writes nothing', async () => {
    const d = draft();
    const original = await writer.append(d);
    const retry = await writer.append({ ...d, payload: { ...d.payload } });
    expect(retry).toEqual({ record: original.record, appended: false });
    await expect(writer.append({ ...d, kind: 'process_notification_consumed' })).rejects.toBeInstanceOf(IdempotencyCollisionError);
    expect(await rows()).toBe(1);
  });

  it('names the original and the fields a collision changes (names only), none once the original payload is dropped', async () => {
    const d = draft(undefined, 'a-secret-handle');
    const { record } = await writer.append(d);
    const changed = { ...d.payload, process_handle: 'another-secret', state: 'failed', extra: 'x' };
    const collision = await settle(writer.append({ ...d, payload: changed }));
    expect((collision as { error: unknown }).error).toBeInstanceOf(IdempotencyCollisionError);
    expect((collision as { error: IdempotencyCollisionError }).error).toMatchObject({
      sequence: record.sequence,
      differingFields: ['extra', 'process_handle', 'state'],
    });
    expect(JSON.stringify((collision as { error: IdempotencyCollisionError }).error)).not.toContain('secret');
    // Retention dropped the original's payload: nothing to compare.
    await dataSource.query(`UPDATE pn_journal SET payload = 'null' WHERE sequence = ${record.sequence}`);
    const blind = await settle(writer.append({ ...d, payload: changed }));
    expect((blind as { error: IdempotencyCollisionError }).error).toMatchObject({ sequence: record.sequence, differingFields: [] });
  });

  it('leaves the idempotency key to a unique index, so a second row for one id cannot be written', async () => {
    const { record } = await writer.append(draft());
    await expect(
      dataSource.query(
        `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, created_at)
         VALUES (?, ?, 'process_notification', ?, 'x', '{}', 'now')`,
        [record.sessionId, LOOP, record.idempotencyId],
      ),
    ).rejects.toThrow(/UNIQUE/);
  });

  it('turns a store failure into JournalUnavailableError and publishes nothing', async () => {
    await dataSource.query('DROP TABLE pn_journal');
    await expect(writer.append(draft())).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(published).toEqual([]);
  });

  it('keeps answering after a store failure once the store is back', async () => {
    await dataSource.destroy();
    await expect(writer.append(draft())).rejects.toBeInstanceOf(JournalUnavailableError);
    await dataSource.initialize();
    await expect(writer.append(draft())).resolves.toMatchObject({ appended: true });
  });
});
