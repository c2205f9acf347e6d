import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import { JournalHealthProbe } from './journal-health-probe.js';
import { JournalWriter } from '../journal/journal-writer.service.js';

/** A health check answers sooner than a write may take. */
export const HEALTH_TIMEOUT_MS = 2_000;

/**
 * Whether the journal can commit (`/healthz`, `ProcessNotificationsService.isHealthy`): a probe
 * (see {@link JournalHealthProbe}) in a transaction of the writer's queue of its own, answered
 * within {@link HEALTH_TIMEOUT_MS}. Apart from the writer, which only runs it.
 */
@Injectable()
export class JournalHealth {
  private readonly probe: JournalHealthProbe;

  constructor(
    private readonly writer: JournalWriter,
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
  ) {
    this.probe = new JournalHealthProbe(storeDialectOf(dataSource));
  }

  /**
   * True when the journal can commit, answered within {@link HEALTH_TIMEOUT_MS}: false while the
   * database does not answer, and after a failed write (a full disk, say) until a write commits again.
   */
  isHealthy(): Promise<boolean> {
    return this.probe.check(this.writer.storeFailing, (work) => this.writer.inProbeTransaction(work, HEALTH_TIMEOUT_MS));
  }
}
