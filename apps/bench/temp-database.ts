import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temp directory for one row's database file; `remove()` deletes it with its WAL. */
export function tempDatabase(name: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pn-bench-'));
  return { path: join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
