import { hash } from 'node:crypto';
import type { Subject } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { inCommitSpan } from '../../tracing/commit-span.js';
import { isServerError } from '../dialects/store-failure.js';
import type { JournalOutage } from '../durability/journal-outage.js';
import type { Fence, JournalFencing } from '../leases/journal-fencing.js';
import type { JournalTransactionRunner } from '../transaction/journal-transaction-runner.js';
import { transactionOf } from '../transaction/store-transaction.js';
import type { JournalCommit } from './journal-commit.interface.js';
import type { JournalCommitHint } from './journal-commit-hint.js';
import type { JournalConsumption } from './journal-consumption.interface.js';
import type { JournalCounters } from './journal-counters.js';
import type { JournalAppend, JournalDraft } from './journal-draft.interface.js';
import type { JournalRecordEntity } from './journal-record.entity.js';
import { toDomain } from './journal-record.mapper.js';
import type { JournalRows } from './journal-rows.js';
import type { BeforeCommit } from './journal-transaction.interface.js';
import type { BatchResult, Outcome, QueuedJob } from './journal-write-queue.js';

function fingerprintOf(draft: JournalDraft, payload: string): string {
  return hash('sha256', `${draft.kind}\n${payload}`, 'hex');
}

/** The journal writer's parts a batch runs on (the writer builds them, see `JournalWriter`). */
export interface JournalBatchParts {
  readonly rows: JournalRows;
  readonly transactions: JournalTransactionRunner;
  readonly fencing: JournalFencing;
  readonly counters: JournalCounters;
  readonly hint: Pick<JournalCommitHint, 'notice'>;
  readonly outage: JournalOutage;
  /** Told each time the store answered: the queue's silence clock. */
  readonly queue: { heard(): void };
  /** Sessions closed (when), whose writes are refused. */
  readonly closedSessions: ReadonlyMap<string, string>;
  /** Where every committed transaction is told. */
  readonly commits: Subject<JournalCommit>;
}

/**
 * One batch of the journal writer's queue in one transaction: each job inside its fence, the
 * appends (PostgreSQL's run of plain appends inserted ahead in one statement), then the admin
 * counts and the commit hint. Split from the writer, which keeps its API and the queue.
 */
export class JournalBatch {
  private readonly rows: JournalRows;
  private readonly transactions: JournalTransactionRunner;
  private readonly fencing: JournalFencing;
  private readonly counters: JournalCounters;
  private readonly hint: Pick<JournalCommitHint, 'notice'>;
  private readonly outage: JournalOutage;
  private readonly queue: { heard(): void };
  private readonly closedSessions: ReadonlyMap<string, string>;
  private readonly commits: Subject<JournalCommit>;
  // The records of plain appends the running batch's transaction inserted ahead of their jobs
  // (PostgreSQL, see insertAhead), each taken by its job's appendWithin.
  private readonly insertedAhead = new Map<JournalDraft, JournalRecordEntity>();
  // What the running batch's units gave to be written before it commits (see BeforeCommit).
  private readonly beforeCommits = new Map<BeforeCommit<unknown>, unknown[]>();

  constructor(parts: JournalBatchParts) {
    ({
      rows: this.rows,
      transactions: this.transactions,
      fencing: this.fencing,
      counters: this.counters,
      hint: this.hint,
      outage: this.outage,
      queue: this.queue,
      closedSessions: this.closedSessions,
      commits: this.commits,
    } = parts);
  }

  /** True when the running batch inserted `draft`'s record ahead of its job. */
  private insertedAheadOf(draft: JournalDraft): boolean {
    return this.insertedAhead.has(draft);
  }

  /** Gives `item` to `rows`, written before the running batch commits (see `JournalTransaction.beforeCommit`). */
  beforeCommit<T>(rows: BeforeCommit<T>, item: T): void {
    const items = this.beforeCommits.get(rows as BeforeCommit<unknown>);
    if (items) items.push(item);
    else this.beforeCommits.set(rows as BeforeCommit<unknown>, [item]);
  }

  // One batch in one transaction (one span, linked to every caller's): each job inside its fence,
  // then the admin counts and the commit hint.
  run(batch: readonly QueuedJob[]): Promise<BatchResult> {
    return inCommitSpan(batch, () => this.commitBatch(batch));
  }

  private async commitBatch(batch: readonly QueuedJob[]): Promise<BatchResult> {
    const result = await this.transactions.run(async (manager) => {
      // BEGIN was answered, then every job's statements: the store is there, the batch is just slow.
      this.queue.heard();
      const holds = this.fencing.inTransaction(
        manager,
        batch.flatMap((job) => (job.fence ? [job.fence] : [])),
      );
      const outcomes: Outcome<unknown>[] = [];
      this.insertedAhead.clear();
      this.beforeCommits.clear();
      // Appends already part of a run inserted ahead (taken or found journaled): never sent twice.
      const triedAhead = new Set<JournalDraft>();
      for (const [i, job] of batch.entries()) {
        if (job.fence && !(await holds(job.fence))) {
          outcomes.push({ value: undefined, written: [], refused: this.fencing.refusal(job.fence) });
          continue;
        }
        if (this.rows.insertFirst && job.appends && !triedAhead.has(job.appends[0]!))
          await this.insertAhead(manager, batch, i, holds, triedAhead);
        outcomes.push(await job.run(manager));
        this.queue.heard();
      }
      // A record inserted ahead whose job did not take it (the job was refused meanwhile, its
      // session found closed) must not commit: the batch rolls back and each job runs alone.
      if (this.insertedAhead.size > 0) throw new Error('a record inserted ahead of its job was not taken by it');
      for (const [rows, items] of this.beforeCommits) await rows.write(transactionOf(manager), items);
      this.beforeCommits.clear();
      const written = outcomes.flatMap((outcome) => outcome.written);
      // The admin counts commit with the records that change them (on SQLite one statement per
      // session and loop touched: a large batch is slow, not silent; on PostgreSQL one for all,
      // the commit hint's NOTIFY with them).
      await this.counters.apply(manager, written, this.hint.notice(written));
      this.queue.heard();
      return outcomes;
    });
    // Rolled back or committed, what was inserted ahead is no one's to take any more.
    this.insertedAhead.clear();
    this.beforeCommits.clear();
    if (!('value' in result)) {
      // An error the server sent is an answer too: it is reachable.
      if (isServerError(result.error)) this.queue.heard();
      return result;
    }
    this.queue.heard();
    this.outage.succeeded();
    batch.forEach((job, i) => {
      if (job.fence && result.value[i]!.refused) this.fencing.forget(job.fence);
    });
    this.commits.next({ size: batch.length, seconds: result.seconds });
    return { outcomes: result.value };
  }

  async appendWithin(manager: EntityManager, draft: JournalDraft): Promise<Outcome<JournalAppend | { collision: JournalRecordEntity }>> {
    const ahead = this.insertedAhead.get(draft);
    if (ahead) {
      this.insertedAhead.delete(draft);
      return { value: { record: toDomain(ahead), appended: true }, written: [ahead] };
    }
    const row = this.rowOf(draft);
    // Inserted first on both stores; an id journaled already is then read back.
    const inserted = this.rows.insertFirst
      ? await this.rows.insertUnlessJournaled(manager, row)
      : await this.rows.insertUnlessConflicting(manager, row);
    if (inserted) return { value: { record: toDomain(inserted), appended: true }, written: [inserted] };
    const existing = await this.rows.find(manager, draft.sessionId, draft.idempotencyId);
    if (existing) {
      const value = existing.fingerprint === row.fingerprint ? { record: toDomain(existing), appended: false } : { collision: existing };
      return { value, written: [] };
    }
    // Gone since (on PostgreSQL, a record another transaction held and rolled back): appended now.
    const record = await this.rows.insert(manager, row);
    return { value: { record: toDomain(record), appended: true }, written: [record] };
  }

  /**
   * On PostgreSQL every statement is a round trip the transaction waits on (and each answer waits
   * for this process's event loop to read it): from the job at `from` on, the run of plain appends
   * that follow one another in the batch (of sessions still open and held) is inserted in one
   * statement, so their jobs find their records already written. Job order, and so sequence order,
   * is kept: a run ends at the first job that writes something else. Ids already journaled (and a
   * repeat of an id within the run) are left to their job, which finds the record.
   */
  private async insertAhead(
    manager: EntityManager,
    batch: readonly QueuedJob[],
    from: number,
    holds: (fence: Fence) => Promise<boolean>,
    tried: Set<JournalDraft>,
  ): Promise<void> {
    const drafts = new Map<string, JournalDraft>();
    for (const job of batch.slice(from)) {
      if (!job.appends) break;
      job.appends.forEach((draft) => tried.add(draft));
      if (job.fence && !(await holds(job.fence))) continue;
      for (const draft of job.appends) {
        if (this.closedSessions.has(draft.sessionId)) continue;
        const key = `${draft.sessionId}\n${draft.idempotencyId}`;
        if (!drafts.has(key)) drafts.set(key, draft);
      }
    }
    if (drafts.size < 2) return;
    const rows = new Map([...drafts.values()].map((draft) => [this.rowOf(draft), draft] as const));
    const inserted = await this.rows.insertManyUnlessJournaled(manager, [...rows.keys()]);
    for (const [row, record] of inserted) this.insertedAhead.set(rows.get(row)!, record);
    this.queue.heard();
  }

  // The journal row of a draft: its canonical payload, fingerprint and time of writing.
  private rowOf(draft: JournalDraft): Omit<JournalRecordEntity, 'sequence'> {
    const payload = JSON.stringify(draft.payload);
    const fingerprint = fingerprintOf(draft, payload);
    return {
      sessionId: draft.sessionId,
      loopId: draft.loopId,
      kind: draft.kind,
      idempotencyId: draft.idempotencyId,
      fingerprint,
      payload,
      causeCommandId: draft.causeCommandId ?? null,
      createdAt: new Date().toISOString(),
    };
  }

  /** The job of `JournalWriter.consume`: each id's consumed record in order (see there). */
  async consumeAll(
    manager: EntityManager,
    loopId: string,
    commandIds: readonly string[],
    drafts: ReadonlyMap<string, JournalDraft>,
    held: (commandId: string) => boolean,
  ): Promise<Outcome<JournalConsumption[]>> {
    const written: JournalRecordEntity[] = [];
    const answers = new Map<string, JournalConsumption>();
    const value: JournalConsumption[] = [];
    for (const commandId of commandIds) {
      const first = answers.get(commandId);
      // A repeat of an id earlier in the call: that one consumed it, so this one did not.
      if (first) value.push('notFound' in first ? first : { ...first, consumed: false });
      else {
        const draft = drafts.get(commandId)!;
        // Inserted ahead: no consumed record was journaled before, and the id was held when queued.
        const known = this.insertedAheadOf(draft) || held(commandId);
        const answer = await this.consumeWithin(manager, loopId, commandId, draft, known, written);
        answers.set(commandId, answer);
        value.push(answer);
      }
    }
    return { value, written };
  }

  private async consumeWithin(
    manager: EntityManager,
    loopId: string,
    commandId: string,
    draft: JournalDraft,
    held: boolean,
    written: JournalRecordEntity[],
  ): Promise<JournalConsumption> {
    const { sessionId } = draft;
    if (!held) {
      const prior = await this.rows.find(manager, sessionId, draft.idempotencyId);
      if (prior) return prior.loopId === loopId ? { commandId, consumed: false, sequence: prior.sequence } : { commandId, notFound: true };
      const notification = await this.rows.find(manager, sessionId, commandId);
      if (notification?.kind !== 'process_notification' || notification.loopId !== loopId) return { commandId, notFound: true };
    }
    const { value, written: appended } = await this.appendWithin(manager, draft);
    // The consumed record's payload names only the command id and the loop: a different one
    // under its id is another loop's, which this loop never had.
    if ('collision' in value) return { commandId, notFound: true };
    written.push(...appended);
    return { commandId, consumed: value.appended, sequence: value.record.sequence };
  }
}
