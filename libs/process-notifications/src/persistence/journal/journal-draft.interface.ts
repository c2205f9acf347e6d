import type { EntityManager } from 'typeorm';
import type { JournalKind } from '../../vocabulary/process-vocabulary.js';
import type { JournalRecord } from '../../model/journal-record.interface.js';
import type { JournalRecordEntity } from './journal-record.entity.js';

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
  readonly record: JournalRecord;
  /** True when this call wrote the record. */
  readonly appended: boolean;
}

/** Appends a draft inside a health probe's transaction as the writer does, handing back what it wrote (never announced). */
export type ProbeAppend = (manager: EntityManager, draft: JournalDraft) => Promise<{ written: readonly JournalRecordEntity[] }>;
