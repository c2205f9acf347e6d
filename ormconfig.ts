import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { DEFAULT_DATABASE_URL, dataSourceOptionsFromUrl } from 'nestjs-process-notifications';

/**
 * The DataSource for the TypeORM migration CLI, on the same PN_DATABASE_URL as the server:
 * `npx typeorm migration:run -d dist/ormconfig.js` (after `npm run build`).
 */
export default new DataSource(dataSourceOptionsFromUrl(process.env.PN_DATABASE_URL || DEFAULT_DATABASE_URL));
