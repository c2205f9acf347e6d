import { NestFactory } from '@nestjs/core';
import { ProcessNotificationsModule, ProcessNotificationsService } from '#process-notifications';
import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RestoreResult, RestoreRow } from './restore-row.interface.js';
import { tempDatabase } from './temp-database.js';

/** Journal size and how many times the start is timed (the table reports the median). */
export interface RestoreOptions {
  readonly records: number;
  readonly runs: number;
}

/** Starts the module on the file (which runs the restore in `SessionRegistry.onModuleInit`). */
async function start(databaseUrl: string): Promise<{ seconds: number; service: ProcessNotificationsService; close: () => Promise<void> }> {
  const started = performance.now();
  const app = await NestFactory.createApplicationContext(ProcessNotificationsModule.forRoot({ databaseUrl }), { logger: ['error', 'warn'] });
  const seconds = (performance.now() - started) / 1000;
  return { seconds, service: app.get(ProcessNotificationsService), close: () => app.close() };
}

/**
 * Writes the journal in bulk the way test/durability/restore-100k.int-spec.ts does: notifications,
 * and a consumed record for every tenth of them. Returns how many stay pending.
 */
function bulkInsert(path: string, sessionId: string, loopId: string, records: number): number {
  const db = new Database(path);
  try {
    const insert = db.prepare(
      'INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    let pending = 0;
    db.transaction(() => {
      const now = new Date().toISOString();
      let written = 0;
      for (let i = 0; written < records; i++) {
        const commandId = randomUUID();
        const payload = JSON.stringify({
          command_id: commandId,
          session_id: sessionId,
          loop_id: loopId,
          process_handle: `proc-${i}`,
          state: 'exited',
          reason: 'exited',
        });
        const fingerprint = createHash('sha256').update(`process_notification\n${payload}`).digest('hex');
        insert.run(sessionId, loopId, 'process_notification', commandId, fingerprint, payload, null, now);
        written++;
        if (i % 10 === 0 && written < records) {
          const consumed = JSON.stringify({ command_id: commandId, loop_id: loopId });
          insert.run(sessionId, loopId, 'process_notification_consumed', `consumed:${commandId}`, 'x'.repeat(64), consumed, commandId, now);
          written++;
        } else {
          pending++;
        }
      }
    })();
    return pending;
  } finally {
    db.close();
  }
}

/**
 * Restore: the time to start the module (Nest application context init, whose
 * `SessionRegistry.onModuleInit` rebuilds every pending set from the journal) on a file database
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

          const expected = bulkInsert(file.path, sessionId, loopId, records);
          const startSeconds: number[] = [];
          let pending = 0;
          for (let i = 0; i < runs; i++) {
            const app = await start(databaseUrl);
            try {
              startSeconds.push(app.seconds);
              pending = app.service.pendingNotifications(sessionId, loopId).length;
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
