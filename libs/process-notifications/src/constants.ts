/** Name of the library's own TypeORM connection, so it never clashes with the host's. */
export const PN_CONNECTION = 'process-notifications';
