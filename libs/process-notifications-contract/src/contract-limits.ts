/*
 * The bounds the contract states, defined once: the server enforces them, the clients keep
 * within them, and the OpenAPI document quotes them.
 */

/** Largest request body the API accepts, in bytes: past it, `413 payload_too_large` (section 8). */
export const MAX_BODY_BYTES = 16 * 1024;

/** Most command ids one batch consume request takes (section 8). */
export const MAX_CONSUME_BATCH = 256;

/**
 * Most notifications one batch delivery request takes (`POST .../process-completions/batch`);
 * the request stays within {@link MAX_BODY_BYTES} as every request does.
 */
export const MAX_DELIVERY_BATCH = 32;

/** Most records one journal page holds (`limit` of `GET .../journal`, section 8). */
export const MAX_JOURNAL_PAGE = 1000;

/** Most UTF-8 bytes a lifecycle record's diagnostic may take (section 6). */
export const LIFECYCLE_DIAGNOSTIC_MAX_BYTES = 512;

/**
 * The rule of a process handle (section 2), as a regular expression's source: 1 to 128 bytes of
 * `A-Z a-z 0-9 - _` (ASCII only, so 128 bytes are 128 characters).
 */
export const PROCESS_HANDLE_PATTERN = '^[A-Za-z0-9_-]{1,128}$';

/**
 * The rule of a lifecycle record's `signal` (section 6), as a regular expression's source: the
 * name of a POSIX signal, `SIG` and 2 to 10 upper-case letters or digits (`SIGSEGV`, `SIGRTMIN1`).
 */
export const PROCESS_SIGNAL_PATTERN = '^SIG[A-Z0-9]{2,10}$';
