// SQLite result codes after which the whole connection or file is at fault, not one statement:
// retrying the jobs of the batch one by one could only fail again (or wait again).
const SQLITE_STORE_CODES = /^SQLITE_(FULL|IOERR|NOMEM|BUSY|LOCKED|READONLY|CORRUPT|CANTOPEN|NOTADB|PROTOCOL|INTERRUPT)/;

// PostgreSQL SQLSTATE classes of the same kind: connection exceptions, insufficient resources,
// operator intervention (statement timeout, shutdown), system errors, internal errors.
const POSTGRES_STORE_CLASSES = /^(08|53|57|58|XX)|^25P03$/;

/** The driver's own error: a QueryFailedError's `driverError`, or the error itself when the driver threw it directly. */
export function driverErrorOf(error: unknown): { code?: unknown; message?: unknown } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const driverError = (error as { driverError?: unknown }).driverError;
  return (typeof driverError === 'object' && driverError !== null ? driverError : error) as { code?: unknown; message?: unknown };
}

/**
 * True when an error says the store itself is failing (disk full, I/O error, lock wait, lost or
 * stalled connection) rather than one job's statement being wrong. Such a failure fails the whole
 * batch at once, and the writer verifies and repairs the connection before it tries again.
 */
export function isStoreFailure(error: unknown): boolean {
  const driverError = driverErrorOf(error);
  if (!driverError) return false;
  const { code, message } = driverError;
  if (typeof code === 'string') return SQLITE_STORE_CODES.test(code) || POSTGRES_STORE_CLASSES.test(code);
  // node-postgres' own failures (timeouts, a terminated connection) carry no SQLSTATE.
  return typeof message === 'string' && /timeout|terminated|ECONNRESET|ECONNREFUSED|not queryable|Connection/i.test(message);
}

/**
 * True when PostgreSQL itself answered with an error that ends the statement, not the session
 * (severity `ERROR`): the connection is still in step and usable once rolled back. A timeout of
 * the client, a lost connection or a FATAL error is not.
 */
export function isServerError(error: unknown): boolean {
  const driverError = driverErrorOf(error) as { code?: unknown; severity?: unknown } | undefined;
  return typeof driverError?.code === 'string' && driverError.severity === 'ERROR';
}

/**
 * True when a SQLite statement failed on a unique index (`SQLITE_CONSTRAINT_UNIQUE`): the row it
 * would have added is there already, the statement alone is undone and the transaction goes on.
 * SQLite only: on PostgreSQL such an error aborts the whole transaction.
 */
export function isSqliteUniqueViolation(error: unknown): boolean {
  return driverErrorOf(error)?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
