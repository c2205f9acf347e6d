import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MoreThan } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import { CONSUMED_KIND, JournalRecordEntity } from '../journal/journal-record.entity.js';
import { toDomain } from '../journal/journal-record.mapper.js';
import { consumedIdOf } from '../journal/consumed-record.js';
import { JournalRows } from '../journal/journal-rows.js';
import type { JournalRecord } from '../../model/journal-record.interface.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { managerOf } from '../transaction/store-transaction.js';
import {
  LoopStreamRows,
  MAX_LOOP_STREAM_RANGES,
  type LoopStreamPage,
  type LoopStreamRange,
  type LoopStreamRangesPage,
  type LoopStreamStart,
  type SessionLoopStreamPage,
} from './loop-stream-rows.js';

// Records of one read of a journal page on SQLite, whose reads run in this thread: a fraction of a
// millisecond of the event loop. PostgreSQL's run on its server and read a page in one statement.
const SQLITE_PAGE_SLICE = 10;
// Records of one read of a loop's event stream on SQLite: a loop's records carry no payload
// parsing in the read, so a larger slice still holds the event loop for well under a millisecond.
const SQLITE_LOOP_SLICE = 100;
// On SQLite, ranges whose positions lie within this many sequences of each other are read as one
// walk of the journal's tail (LoopStreamRows.tailPage, of the ranges' sessions only); a range
// further behind (a stream reading its backlog) would make that walk read the other ranges'
// records it already has, so they are then read range by range.
const TAIL_SPREAD = 2_000;

/**
 * The paged reads of the journal: a session's records, a loop's event stream, many sessions'
 * streams at once. Each read is one lookup of the journal writer's read connection (see
 * {@link JournalWriter.lookup}), so it never waits behind a write batch.
 */
@Injectable()
export class JournalPages {
  private readonly loopStreams: LoopStreamRows;
  private readonly rows: JournalRows;
  private readonly pageSlice: number;
  private readonly loopSlice: number;
  private readonly tailReads: boolean;

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
  ) {
    this.loopStreams = new LoopStreamRows(dataSource);
    this.rows = new JournalRows(dataSource);
    const dialect = storeDialectOf(dataSource);
    this.pageSlice = dialect.inProcess ? SQLITE_PAGE_SLICE : Number.POSITIVE_INFINITY;
    this.loopSlice = dialect.inProcess ? SQLITE_LOOP_SLICE : Number.POSITIVE_INFINITY;
    // One connection writes an in-process store, so its commits are in sequence order.
    this.tailReads = dialect.inProcess;
  }

  /** Where a loop's event stream starts (see {@link LoopStreamRows.start}); undefined for an unknown loop. */
  loopStreamStart(sessionId: string, loopId: string): Promise<LoopStreamStart | undefined> {
    return this.journal.lookup((store) => this.loopStreams.start(managerOf(store), sessionId, loopId));
  }

  /** One read of a loop's event stream after `after` (see {@link LoopStreamRows.page}). */
  loopStreamPage(sessionId: string, loopId: string, after: number, limit: number): Promise<LoopStreamPage> {
    return this.journal.lookup((store) =>
      this.loopStreams.page(managerOf(store), sessionId, loopId, after, Math.min(limit, this.loopSlice)),
    );
  }

  /** One read of every loop's stream of a session after `after` (see {@link LoopStreamRows.sessionPage}). */
  sessionLoopStreamPage(sessionId: string, after: number, limit: number): Promise<SessionLoopStreamPage> {
    return this.journal.lookup((store) =>
      this.loopStreams.sessionPage(managerOf(store), sessionId, after, Math.min(limit, this.loopSlice)),
    );
  }

  /**
   * One read of several loop streams' ranges, one range per session (see
   * {@link LoopStreamRows.rangesPage}): one statement per {@link MAX_LOOP_STREAM_RANGES} ranges,
   * so a node's streams of many sessions cost one read per commit, not one per session. On SQLite,
   * ranges close to each other are one walk of the journal's tail instead ({@link TAIL_SPREAD}).
   */
  async loopStreamRangesPage(ranges: readonly LoopStreamRange[], limit: number): Promise<LoopStreamRangesPage> {
    if (this.tailReads && ranges.length > 1 && ranges.length <= MAX_LOOP_STREAM_RANGES && spreadOf(ranges) <= TAIL_SPREAD) {
      return this.journal.lookup((store) => this.loopStreams.tailPage(managerOf(store), ranges, Math.min(limit, this.loopSlice)));
    }
    const rows: Array<LoopStreamRangesPage['rows'][number]> = [];
    const last: number[] = [];
    let more = false;
    for (let first = 0; first < ranges.length; first += MAX_LOOP_STREAM_RANGES) {
      const chunk = ranges.slice(first, first + MAX_LOOP_STREAM_RANGES);
      const page = await this.journal.lookup((store) =>
        this.loopStreams.rangesPage(managerOf(store), chunk, Math.min(limit, this.loopSlice)),
      );
      for (const { range, loopId, row } of page.rows) rows.push({ range: first + range, loopId, row });
      last.push(...page.last);
      more ||= page.more;
    }
    return { rows, last, more };
  }

  /**
   * The consumed record of a notification, if it was consumed: one probe of the journal's unique
   * index, by the record's own id. Not a query on its cause and kind: with the kind a bound
   * parameter, SQLite may plan it without the partial index on consumed records, over the
   * session's records (a read of the whole session for every retry of a consumed notification).
   */
  async consumptionOf(sessionId: string, commandId: string): Promise<JournalRecord | null> {
    const row = await this.journal.lookup((store) => this.rows.find(managerOf(store), sessionId, consumedIdOf(commandId)));
    return row?.kind === CONSUMED_KIND ? toDomain(row) : null;
  }

  /**
   * Up to `limit` records of a session after sequence `after`, in sequence order. On SQLite read
   * in slices of at most {@link SQLITE_PAGE_SLICE} records, each a read of its own, so that a
   * large page never holds the event loop for long: a session's readers cannot starve another
   * session's deliveries. Gap-free as a client paging is: records commit in sequence order within
   * a session, and each slice starts after the last one read.
   */
  page(sessionId: string, after: number, limit: number): Promise<JournalRecord[]> {
    return this.pageOf(sessionId, after, limit, (record) => record);
  }

  /** {@link page}, each record turned into what `view` makes of it within its slice's read. */
  async pageOf<T>(sessionId: string, after: number, limit: number, view: (record: JournalRecord) => T): Promise<T[]> {
    const records: T[] = [];
    let from = after;
    while (records.length < limit) {
      const take = Math.min(this.pageSlice, limit - records.length);
      let read = 0;
      const slice = await this.journal.lookup(async (store) => {
        const rows = await managerOf(store).find(JournalRecordEntity, {
          where: { sessionId, sequence: MoreThan(from) },
          order: { sequence: 'ASC' },
          take,
        });
        read = rows.length;
        if (read > 0) from = rows.at(-1)!.sequence;
        // In the same turn as the read: turning a slice's payloads into objects is work too.
        return rows.map((row) => view(toDomain(row)));
      });
      records.push(...slice);
      if (read < take) break;
    }
    return records;
  }
}

// How far apart the ranges' positions lie.
function spreadOf(ranges: readonly LoopStreamRange[]): number {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const { after } of ranges) {
    low = Math.min(low, after);
    high = Math.max(high, after);
  }
  return high - low;
}
