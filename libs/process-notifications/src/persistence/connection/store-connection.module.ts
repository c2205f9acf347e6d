import { Logger, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { PROCESS_NOTIFICATIONS_OPTIONS } from '../../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../../process-notifications-options.interface.js';
import { dataSourceOptionsFromUrl } from './data-source-options.js';
import { runMigrationsExclusively } from '../migrations/migration-lock.js';
import { OwnedDataSource } from './owned-data-source.js';
import { SchemaNewerThanCodeError } from '../migrations/schema-newer-than-code.error.js';
import { SqliteFileInUseError } from '../dialects/sqlite-file-in-use.error.js';

/**
 * The library's named connection (`PN_CONNECTION`) to the database of the options' `databaseUrl`,
 * the migrations applied under their lock before anything else uses it, a SQLite file owned by
 * this process until the module closes (`SqliteFileInUseError` for a second). The module's one
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
        // A schema newer than this code does not get better by waiting, and a SQLite file another
        // process owns is refused at once (its owner may run for days).
        toRetry: (error: unknown) => !(error instanceof SchemaNewerThanCodeError || error instanceof SqliteFileInUseError),
      }),
      dataSourceFactory: async (options) => {
        // Owned while the module runs: a SQLite file by this process alone (OwnedDataSource).
        const dataSource = await new OwnedDataSource(options!).initialize();
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
