import 'reflect-metadata';
import { DEFAULT_DATABASE_URL, OwnedDataSource, dataSourceOptionsFromUrl } from 'nestjs-process-notifications';

/**
 * The DataSource for the TypeORM migration CLI, on the same PN_DATABASE_URL as the server:
 * `npx typeorm migration:run -d dist/ormconfig.js` (after `npm run build`). Owned like the
 * server's: a SQLite file a server runs on is refused (`SqliteFileInUseError`).
 */
export default new OwnedDataSource(dataSourceOptionsFromUrl(process.env.PN_DATABASE_URL || DEFAULT_DATABASE_URL));
