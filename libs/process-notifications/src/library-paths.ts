// TEMPORARY (issue 24 measurement, removed before merge): PN_LIBRARY_PATHS=dto,validity,sqlite
// makes the named fast paths take the library's own path, so one interleaved bench run can
// compare both. Read per call so in-process bench rows can flip it between rows.
export type FastPath = 'dto' | 'validity' | 'sqlite';
let raw: string | undefined;
let chosen: ReadonlySet<string> = new Set();
export function libraryPath(path: FastPath): boolean {
  const now = process.env.PN_LIBRARY_PATHS;
  if (now !== raw) {
    raw = now;
    chosen = new Set((now ?? '').split(','));
  }
  return chosen.has(path);
}
