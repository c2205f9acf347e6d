// Runs after `tsc`: removes compiled files whose TypeScript source is gone. The build writes
// into dist/ in place instead of deleting it first, so a server running from dist/ keeps its
// files while tests or migrations build again.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const DIST = 'dist';
const COMPILED = /\.(?:js|js\.map|d\.ts)$/;

function* files(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

if (existsSync(DIST)) {
  for (const file of files(DIST)) {
    if (!COMPILED.test(file)) continue;
    const source = relative(DIST, file).replace(COMPILED, '.ts');
    if (!existsSync(source)) rmSync(file);
  }
}
