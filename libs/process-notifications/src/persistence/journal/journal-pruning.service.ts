import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { managerOf } from '../transaction/store-transaction.js';
import { JournalRows } from './journal-rows.js';
import { JournalWriter } from './journal-writer.service.js';

/** Retention's write: the prunable payloads dropped, in transactions of the journal writer's queue. */
@Injectable()
export class JournalPruning {
  private readonly rows: JournalRows;

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
  ) {
    this.rows = new JournalRows(dataSource);
  }

  /** Drops up to `limit` prunable payloads older than `cutoff` in one transaction (retention). */
  dropPayloads(cutoff: string, limit: number): Promise<number> {
    return this.journal.write((store) => this.rows.dropPayloads(managerOf(store), cutoff, limit));
  }
}
