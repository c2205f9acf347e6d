/** A missing or invalid option: reported in one line, with exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
