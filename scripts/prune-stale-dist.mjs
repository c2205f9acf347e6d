// Runs after `tsc`: removes compiled files whose TypeScript source is gone. The build writes
// into dist/ in place instead of deleting it first, so a server running from dist/ keeps its
// files while tests or migrations build again.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

// Each build output beside the folder its sources are relative to.
const OUTPUTS = [
  { dist: 'dist', sources: '.' },
  { dist: 'libs/process-notifications-contract/dist', sources: 'libs/process-notifications-contract/src' },
  { dist: 'libs/process-notifications/dist', sources: 'libs/process-notifications/src' },
  { dist: 'libs/process-notifications-client/dist', sources: 'libs/process-notifications-client/src' },
  { dist: 'libs/pn-supervise/dist', sources: 'libs/pn-supervise/src' },
];
const COMPILED = /\.(?:js|js\.map|d\.ts|d\.ts\.map)$/;
// Written by Vite (the web console), not compiled from a TypeScript file beside it.
const BUNDLED = join('dist', 'console', '');

function* files(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

for (const { dist, sources } of OUTPUTS) {
  if (!existsSync(dist)) continue;
  for (const file of files(dist)) {
    if (!COMPILED.test(file) || file.startsWith(BUNDLED)) continue;
    const source = join(sources, relative(dist, file).replace(COMPILED, '.ts'));
    if (!existsSync(source)) rmSync(file);
  }
}
