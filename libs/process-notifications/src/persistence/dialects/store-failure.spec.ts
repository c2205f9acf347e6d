import { isServerError, isSqliteUniqueViolation, isStoreFailure } from './store-failure.js';

// A store failure fails the whole batch at once; anything else is one statement's fault and
// each job is retried alone (journal writer). The codes are the drivers' own: SQLite result
// codes (better-sqlite3 puts them in `code`), PostgreSQL SQLSTATEs (node-postgres), possibly
// wrapped by TypeORM in a QueryFailedError's `driverError`.
const withCode = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });
const wrapped = (driverError: unknown) => Object.assign(new Error('QueryFailedError'), { driverError });

describe('isStoreFailure', () => {
  it.each([
    ['SQLITE_FULL', true],
    ['SQLITE_IOERR_WRITE', true],
    ['SQLITE_BUSY', true],
    ['SQLITE_READONLY', true],
    ['SQLITE_CORRUPT', true],
    ['SQLITE_CONSTRAINT_UNIQUE', false],
    ['SQLITE_ERROR', false],
    ['SQLITE_MISMATCH', false],
    ['08006', true], // connection_failure
    ['53100', true], // disk_full
    ['57014', true], // query_canceled (statement timeout)
    ['58030', true], // io_error
    ['XX000', true], // internal_error
    ['25P03', true], // idle_in_transaction_session_timeout
    ['25P02', false], // in_failed_sql_transaction: a statement of this transaction failed
    ['23505', false], // unique_violation
    ['42P01', false], // undefined_table
  ])('code %s: %s, as the error itself or as the driverError of a wrapper', (code, expected) => {
    expect(isStoreFailure(withCode(code))).toBe(expected);
    expect(isStoreFailure(wrapped(withCode(code)))).toBe(expected);
  });

  it.each([
    ['Connection terminated unexpectedly', true],
    ['timeout exceeded when trying to connect', true],
    ['Query read timeout', true],
    ['read ECONNRESET', true],
    ['connect ECONNREFUSED 127.0.0.1:5432', true],
    ['Client has encountered a connection error and is not queryable', true],
    ['syntax error at or near "SELEC"', false],
    ['no such table: pn_journal', false],
  ])('without a code, by the message of node-postgres: %s: %s', (message, expected) => {
    expect(isStoreFailure(new Error(message))).toBe(expected);
    expect(isStoreFailure(wrapped(new Error(message)))).toBe(expected);
  });

  it('is false for what carries neither a code nor a message', () => {
    expect(isStoreFailure(null)).toBe(false);
    expect(isStoreFailure(undefined)).toBe(false);
    expect(isStoreFailure('SQLITE_FULL')).toBe(false);
    expect(isStoreFailure({ code: 42, message: 7 })).toBe(false);
    // A wrapper whose driverError is missing is judged by its own code.
    expect(isStoreFailure(Object.assign(new Error('x'), { driverError: null, code: 'SQLITE_FULL' }))).toBe(true);
  });

  it.each([
    [{ code: '53100', severity: 'ERROR' }, true], // disk full: the statement failed, the session is fine
    [{ code: '57014', severity: 'ERROR' }, true], // statement timeout (the server cancelled it)
    [{ code: '25P03', severity: 'FATAL' }, false], // idle in transaction: the server ended the session
    [{ code: '57P01', severity: 'FATAL' }, false], // admin shutdown
    [{ message: 'Query read timeout' }, false], // no answer: the statement may still be queued
  ])('tells a connection the server answered from a broken one: %j: %s', (fields, expected) => {
    const error = Object.assign(new Error('x'), fields);
    expect(isServerError(error)).toBe(expected);
    expect(isServerError(wrapped(error))).toBe(expected);
  });
});

// An append on SQLite inserts first and reads the record under its id only on this conflict: any
// other constraint (or store) failure must not pass for "journaled already".
describe('isSqliteUniqueViolation', () => {
  it.each([
    ['SQLITE_CONSTRAINT_UNIQUE', true],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', false],
    ['SQLITE_CONSTRAINT_NOTNULL', false],
    ['SQLITE_CONSTRAINT', false],
    ['SQLITE_FULL', false],
    ['23505', false],
  ])('%s: %s, thrown by the driver or wrapped by TypeORM', (code, expected) => {
    expect(isSqliteUniqueViolation(withCode(code))).toBe(expected);
    expect(isSqliteUniqueViolation(wrapped(withCode(code)))).toBe(expected);
  });

  it('is false for what carries no code', () => {
    expect(isSqliteUniqueViolation(new Error('UNIQUE constraint failed'))).toBe(false);
    expect(isSqliteUniqueViolation(undefined)).toBe(false);
  });
});
