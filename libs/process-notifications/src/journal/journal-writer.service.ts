import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Subject } from 'rxjs';
import { DataSource, MoreThan, type EntityManager } from 'typeorm';
import { PN_CONNECTION } from '../constants.js';
import { ProcessNotificationsError } from '../errors/process-notifications.error.js';
import { IdempotencyCollisionError } from '../errors/idempotency-collision.error.js';
import { JournalUnavailableError } from '../errors/journal-unavailable.error.js';
import { JournalRecordEntity, type JournalKind } from './journal-record.entity.js';

/** A record to append. `payload` must already be in its canonical key order. */
export interface JournalDraft {
  readonly sessionId: string;
  readonly loopId: string | null;
  readonly kind: JournalKind;
  readonly idempotencyId: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly causeCommandId?: string | null;
}

export interface JournalAppend {
  /** The record now in the journal: the new one, or the original on an identical retry. */
  readonly record: JournalRecordEntity;
  /** True when this call wrote the record. */
  readonly appended: boolean;
}

type Outcome<T> = { value: T; written: JournalRecordEntity[] };

interface Job {
  run(manager: EntityManager): Promise<Outcome<unknown>>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

// Domain errors thrown by a unit of work pass through; anything else is the store failing.
function asJournalError(error: unknown): Error {
  return error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
}

const JOURNAL_COLUMNS = 'sequence, session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at';

interface JournalRow {
  sequence: number | string;
  session_id: string;
  loop_id: string | null;
  kind: JournalKind;
  idempotency_id: string;
  fingerprint: string;
  payload: string;
  cause_command_id: string | null;
  created_at: string;
}

function recordFromRow(row: JournalRow): JournalRecordEntity {
  return Object.assign(new JournalRecordEntity(), {
    sequence: Number(row.sequence),
    sessionId: row.session_id,
    loopId: row.loop_id,
    kind: row.kind,
    idempotencyId: row.idempotency_id,
    fingerprint: row.fingerprint,
    payload: row.payload,
    causeCommandId: row.cause_command_id,
    createdAt: row.created_at,
  });
}

// Enough to amortise a commit (an fsync on a file database) without holding callers for long.
const MAX_BATCH = 256;

/**
 * The single gateway to the database. Every unit of work is queued and run one transaction
 * at a time, so TypeORM never opens a transaction inside another on SQLite's one connection;
 * work queued while a transaction runs is committed together in the next one (group commit).
 * When a batch fails, each of its jobs is retried once alone, so every caller gets its own answer.
 */
@Injectable()
export class JournalWriter {
  private readonly logger = new Logger(JournalWriter.name);
  private readonly queue: Job[] = [];
  private draining = false;
  private sql?: { find: string; insert: string };
  private readonly committed = new Subject<JournalRecordEntity>();

  /** Records as they commit, in sequence order. */
  readonly records$ = this.committed.asObservable();

  constructor(@InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource) {}

  /**
   * Appends a record idempotently, keyed by (session, idempotency id). An identical retry
   * writes nothing and returns the original; a different payload under the same id throws
   * {@link IdempotencyCollisionError}; any store failure throws {@link JournalUnavailableError}.
   */
  async append(draft: JournalDraft): Promise<JournalAppend> {
    const payload = JSON.stringify(draft.payload);
    const fingerprint = createHash('sha256').update(`${draft.kind}\n${payload}`).digest('hex');
    const sql = this.appendSql();
    const result = await this.enqueue<JournalAppend | { collision: JournalRecordEntity }>(async (manager) => {
      const [row] = (await manager.query(sql.find, [draft.sessionId, draft.idempotencyId])) as JournalRow[];
      if (row) {
        const existing = recordFromRow(row);
        const value = existing.fingerprint === fingerprint ? { record: existing, appended: false } : { collision: existing };
        return { value, written: [] };
      }
      const record = Object.assign(new JournalRecordEntity(), {
        sessionId: draft.sessionId,
        loopId: draft.loopId,
        kind: draft.kind,
        idempotencyId: draft.idempotencyId,
        fingerprint,
        payload,
        causeCommandId: draft.causeCommandId ?? null,
        createdAt: new Date().toISOString(),
      });
      const [inserted] = (await manager.query(sql.insert, [
        record.sessionId,
        record.loopId,
        record.kind,
        record.idempotencyId,
        record.fingerprint,
        record.payload,
        record.causeCommandId,
        record.createdAt,
      ])) as Array<{ sequence: number | string }>;
      record.sequence = Number(inserted!.sequence);
      return { value: { record, appended: true }, written: [record] };
    });
    if ('collision' in result) throw new IdempotencyCollisionError(draft.idempotencyId, result.collision.sequence);
    return result;
  }

  /**
   * Runs `work` in the serialized queue (writes other than journal appends). A domain error it
   * throws (e.g. `AlreadyExistsError`) is handed back to its caller without failing the batch it
   * shares with other callers, so it must be thrown before the work writes anything.
   */
  async write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const outcome = await this.enqueue<{ done: T } | { refused: ProcessNotificationsError }>(async (manager) => {
      try {
        return { value: { done: await work(manager) }, written: [] };
      } catch (error) {
        if (error instanceof ProcessNotificationsError) return { value: { refused: error }, written: [] };
        throw error;
      }
    });
    if ('refused' in outcome) throw outcome.refused;
    return outcome.done;
  }

  /**
   * Runs a read in the same queue, so it never observes another caller's uncommitted
   * transaction on a shared SQLite connection.
   */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.write(work);
  }

  /** The consumed record of a notification, if it was consumed. */
  consumptionOf(sessionId: string, commandId: string): Promise<JournalRecordEntity | null> {
    return this.read((manager) =>
      manager.findOneBy(JournalRecordEntity, { sessionId, causeCommandId: commandId, kind: 'process_notification_consumed' }),
    );
  }

  /** Up to `limit` records of a session after sequence `after`, in sequence order. */
  page(sessionId: string, after: number, limit: number): Promise<JournalRecordEntity[]> {
    return this.read((manager) =>
      manager.find(JournalRecordEntity, {
        where: { sessionId, sequence: MoreThan(after) },
        order: { sequence: 'ASC' },
        take: limit,
      }),
    );
  }

  // Hand-written statements for the hot path: TypeORM's query builder cost more CPU than
  // SQLite spent executing them (see apps/bench). Placeholders follow the driver.
  private appendSql(): { find: string; insert: string } {
    if (!this.sql) {
      const p = (index: number) => this.dataSource.driver.createParameter(`p${index}`, index);
      this.sql = {
        find: `SELECT ${JOURNAL_COLUMNS} FROM pn_journal WHERE session_id = ${p(0)} AND idempotency_id = ${p(1)}`,
        insert:
          'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) ' +
          `VALUES (${[0, 1, 2, 3, 4, 5, 6, 7].map(p).join(', ')}) RETURNING sequence`,
      };
    }
    return this.sql;
  }

  private enqueue<T>(run: (manager: EntityManager) => Promise<Outcome<T>>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // Let callers of the same tick join the first batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const outcomes = await this.transaction(batch);
          this.settle(batch, outcomes);
        } catch {
          // One job's failure must not become every caller's: retry each alone. This also
          // answers a lone append that lost a unique-index race to another process on a
          // shared PostgreSQL: its retry finds the winner's row.
          for (const job of batch) {
            try {
              this.settle([job], await this.transaction([job]));
            } catch (jobError) {
              job.reject(asJournalError(jobError));
            }
          }
        }
      }
    } catch (error) {
      this.logger.error('journal queue failed', error as Error);
    } finally {
      this.draining = false;
      if (this.queue.length > 0) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  private transaction(batch: Job[]): Promise<Outcome<unknown>[]> {
    return this.dataSource.transaction(async (manager) => {
      const outcomes: Outcome<unknown>[] = [];
      for (const job of batch) outcomes.push(await job.run(manager));
      return outcomes;
    });
  }

  // Commit first, publish after: callers and subscribers hear only of committed records.
  private settle(batch: Job[], outcomes: Outcome<unknown>[]): void {
    batch.forEach((job, i) => {
      for (const record of outcomes[i]!.written) this.committed.next(record);
      job.resolve(outcomes[i]!.value);
    });
  }
}
