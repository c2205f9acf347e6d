// `npm start`: runs `npm run build` only when what it builds from changed since the last build,
// so a second start does not compile everything again. `--stamp` (the last step of
// `npm run build`) records what the build just built from.
//
// What it builds from: every file under src/, apps/, scripts/ and each npm package's src/, the
// package.json and tsconfig files, ormconfig.ts, the lockfiles (a new dependency), each file's
// path, size and modification time, hashed. The outputs must exist too. Anything else changed
// (a dist/ file edited by hand): `npm run build` builds whatever this says.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = join('dist', '.build-inputs');
const OUTPUTS = [
  'dist/src/main.js',
  'dist/console/index.html',
  'libs/process-notifications-contract/dist/index.js',
  'libs/process-notifications/dist/index.js',
  'libs/process-notifications-client/dist/index.js',
  'libs/pn-supervise/dist/main.js',
];
// The npm packages the build compiles: not the Python client beside them (libs/*-py), whose wheel
// build writes egg-info and build/ into its folder and whose tests write __pycache__ (issue 48:
// building the wheel made the next start rebuild).
const PACKAGES = readdirSync('libs')
  .map((name) => join('libs', name))
  .filter((dir) => existsSync(join(dir, 'package.json')));
const TREES = ['src', 'apps', 'scripts', ...PACKAGES.map((dir) => join(dir, 'src'))];
const FILES = [
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'ormconfig.ts',
  ...readdirSync('.').filter((name) => /^tsconfig.*\.json$/.test(name)),
  ...PACKAGES.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name === 'package.json' || /^tsconfig.*\.json$/.test(name))
      .map((name) => join(dir, name)),
  ),
];

function* walk(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

function fingerprint() {
  const hash = createHash('sha256');
  const paths = [
    ...TREES.filter((tree) => existsSync(tree)).flatMap((tree) => [...walk(tree)]),
    ...FILES.filter((file) => existsSync(file)),
  ];
  for (const path of paths.sort()) {
    const { size, mtimeMs } = statSync(path);
    hash.update(`${path}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

if (process.argv[2] === '--stamp') {
  writeFileSync(STAMP, `${fingerprint()}\n`);
} else {
  const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
  const now = fingerprint();
  if (built === now && OUTPUTS.every((output) => existsSync(output))) {
    console.error('build is up to date (npm run build builds anyway)');
  } else {
    // The build prints nothing for a minute or two: say why the start is quiet.
    const why =
      built === undefined
        ? 'first start, about 2 minutes'
        : built === now
          ? 'an output is missing'
          : 'the sources changed since the last build';
    console.error(`building (${why})...`);
    const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
}
