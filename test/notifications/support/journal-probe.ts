import { EventBus, type IEvent } from '@nestjs/cqrs';
import type { TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** The module's own DataSource (its TypeORM connection is named 'process-notifications'). */
export function dataSourceOf(moduleRef: TestingModule): DataSource {
  return moduleRef.get<DataSource>(getDataSourceToken('process-notifications'), { strict: false });
}

/**
 * Row counts of the journal, read straight from the table (not through the library). Only
 * call it while no delivery is in flight, so it never reads inside the writer's transaction.
 */
export async function journalCounts(dataSource: DataSource): Promise<{ rows: number; distinctIds: number }> {
  const [row] = (await dataSource.query(
    "SELECT COUNT(*) AS rows_count, COUNT(DISTINCT session_id || '/' || idempotency_id) AS distinct_ids FROM pn_journal",
  )) as Array<{ rows_count: number | string; distinct_ids: number | string }>;
  return { rows: Number(row!.rows_count), distinctIds: Number(row!.distinct_ids) };
}

/** Every event published on the module's event bus from now on, until `stop()`. */
export function recordEvents(moduleRef: TestingModule): { events: IEvent[]; stop: () => void } {
  const events: IEvent[] = [];
  const subscription = moduleRef.get(EventBus, { strict: false }).subscribe((event) => events.push(event));
  return { events, stop: () => subscription.unsubscribe() };
}
