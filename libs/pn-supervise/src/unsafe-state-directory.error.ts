/**
 * A state directory the supervisor will not use: not a directory, owned by another user, or
 * writable by group or others (whoever can write there can make a run kill a process or
 * publish records of their choosing). Reported in one line, with exit status 2, before anything
 * runs.
 */
export class UnsafeStateDirectoryError extends Error {
  override readonly name = 'UnsafeStateDirectoryError';
  readonly code = 'unsafe_state_directory';

  constructor(directory: string, why: string) {
    super(`refusing the state directory ${directory}: ${why}`);
  }
}
