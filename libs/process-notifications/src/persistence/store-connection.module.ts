import { Logger, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../constants.js';
import { PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { dataSourceOptionsFromUrl } from './data-source-options.js';
import { runMigrationsExclusively } from './migration-lock.js';
import { SchemaNewerThanCodeError } from './schema-newer-than-code.error.js';

/**
 * The library's named connection (`PN_CONNECTION`) to the database of the options' `databaseUrl`,
 * the migrations applied under their lock before anything else uses it. The module's one
 * wiring of the store: the rest of the library reaches the database through persistence's ports.
 */
export class StoreConnectionModule {
  /** @param optionsModule exports `PROCESS_NOTIFICATIONS_OPTIONS` (its factory runs once) */
  static forOptions(optionsModule: DynamicModule): DynamicModule {
    return TypeOrmModule.forRootAsync({
      name: PN_CONNECTION,
      imports: [optionsModule],
      inject: [PROCESS_NOTIFICATIONS_OPTIONS],
      // Migrations run here rather than through `migrationsRun`, under a lock (several nodes).
      useFactory: (options: ProcessNotificationsModuleOptions) => ({
        ...dataSourceOptionsFromUrl(options.databaseUrl),
        migrationsRun: false,
        // A schema newer than this code does not get better by waiting.
        toRetry: (error: unknown) => !(error instanceof SchemaNewerThanCodeError),
      }),
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        try {
          const applied = await runMigrationsExclusively(dataSource, { transaction: 'all' });
          // One line per migration applied, so an upgrade's schema change is in the log.
          const logger = new Logger('Migrations');
          for (const migration of applied) logger.log(`applied migration ${migration.name}`);
          if (applied.length > 0)
            logger.log(`schema up to date: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied now`);
        } catch (error) {
          await dataSource.destroy();
          throw error;
        }
        return dataSource;
      },
    });
  }
}
