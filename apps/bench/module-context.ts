import { NestFactory } from '@nestjs/core';
import { ProcessNotificationsModule, ProcessNotificationsService } from 'nestjs-process-notifications';
import { tempDatabase } from './temp-database.js';

/**
 * Runs `fn` against a fresh application context of the module on a fresh database (in memory or
 * a temp file), then closes the context and removes the file.
 */
export async function withModuleContext<T>(
  database: 'memory' | 'file',
  loopCapacity: number,
  fn: (service: ProcessNotificationsService) => Promise<T>,
): Promise<T> {
  const file = database === 'file' ? tempDatabase('journal.db') : undefined;
  try {
    const app = await NestFactory.createApplicationContext(
      ProcessNotificationsModule.forRoot({ databaseUrl: file ? `sqlite:${file.path}` : 'sqlite::memory:', loopCapacity }),
      { logger: ['error', 'warn'] },
    );
    try {
      return await fn(app.get(ProcessNotificationsService));
    } finally {
      await app.close();
    }
  } finally {
    file?.remove();
  }
}
