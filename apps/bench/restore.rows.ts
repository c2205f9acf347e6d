import { NestFactory } from '@nestjs/core';
import { ProcessNotificationsModule, ProcessNotificationsService } from 'nestjs-process-notifications';
import { performance } from 'node:perf_hooks';
import { writeBulkJournal } from '../../test/support/bulk-journal.js';
import type { RestoreResult, RestoreRow } from './restore-row.interface.js';
import { tempDatabase } from './temp-database.js';

/** Journal size and how many times the start is timed (the table reports the median). */
export interface RestoreOptions {
  readonly records: number;
  readonly runs: number;
}

/** Starts the module on the file (which runs the restore in `JournalRestore.onModuleInit`). */
async function start(databaseUrl: string): Promise<{ seconds: number; service: ProcessNotificationsService; close: () => Promise<void> }> {
  const started = performance.now();
  const app = await NestFactory.createApplicationContext(ProcessNotificationsModule.forRoot({ databaseUrl }), {
    logger: ['error', 'warn'],
  });
  const seconds = (performance.now() - started) / 1000;
  return { seconds, service: app.get(ProcessNotificationsService), close: () => app.close() };
}

/**
 * Restore: the time to start the module (Nest application context init, whose
 * `JournalRestore.onModuleInit` rebuilds every pending set from the journal) on a file database
 * holding `records` journal records, timed `runs` times; also the start time of the same file
 * before the bulk insert, which is the part that does not depend on the journal.
 */
export function restoreRows({ records, runs }: RestoreOptions): RestoreRow[] {
  return [
    {
      id: 'restore/file',
      label: 'restore at module start',
      database: 'file',
      async run(): Promise<RestoreResult> {
        const file = tempDatabase('restore.db');
        const databaseUrl = `sqlite:${file.path}`;
        try {
          // Schema, session and loop through the module itself.
          const first = await start(databaseUrl);
          const { sessionId } = await first.service.openSession();
          const { loopId } = await first.service.openLoop(sessionId);
          await first.close();
          const emptyStartSeconds: number[] = [];
          for (let i = 0; i < runs; i++) {
            const app = await start(databaseUrl);
            emptyStartSeconds.push(app.seconds);
            await app.close();
          }

          const expected = writeBulkJournal(file.path, sessionId, loopId, records).length;
          const startSeconds: number[] = [];
          let pending = 0;
          for (let i = 0; i < runs; i++) {
            const app = await start(databaseUrl);
            try {
              startSeconds.push(app.seconds);
              pending = (await app.service.pendingNotifications(sessionId, loopId)).length;
              if (pending !== expected) throw new Error(`restore rebuilt ${pending} pending notifications, expected ${expected}`);
            } finally {
              await app.close();
            }
          }
          return { records, pending, startSeconds, emptyStartSeconds };
        } finally {
          file.remove();
        }
      },
    },
  ];
}
