import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory and a function that removes it. */
export function tempDir(): { path: string; file: (name: string) => string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'pn-test-'));
  return { path, file: (name) => join(path, name), remove: () => rmSync(path, { recursive: true, force: true }) };
}
