/**
 * The database's schema has migrations this code does not know: a newer release migrated it.
 * An older release must not run on it (its writes would miss what the newer schema expects,
 * and nothing says which newer migrations are harmless to it), so the server refuses to start.
 */
export class SchemaNewerThanCodeError extends Error {
  override readonly name = 'SchemaNewerThanCodeError';
  readonly code = 'schema_newer_than_code';

  constructor(readonly unknownMigrations: readonly string[]) {
    super(
      `the database schema is newer than this release: it has migration${unknownMigrations.length === 1 ? '' : 's'} ` +
        `${unknownMigrations.join(', ')}, unknown here; run the release that applied ${unknownMigrations.length === 1 ? 'it' : 'them'} (or a later one), ` +
        'or restore the backup taken before the upgrade',
    );
  }
}
