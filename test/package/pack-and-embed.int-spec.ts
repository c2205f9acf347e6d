import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markedBlock, packAsDocumented, REPO, runDocumented, shellCommands } from '../support/doc-commands.js';

const versionIn = (root: string, name: string): string =>
  (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

// What a new user does, step by step as README.md shows it: pack the library (docs/install.md),
// make a host outside this repository with the README's package.json and tsconfig.json, install
// with the README's commands (from the registry, as a user would: today's TypeScript), then
// compile the README's example in strict mode and run it with the README's command.
describe('the package, installed into a fresh host as the README says', () => {
  let scratch: string;
  beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), 'pn-host-'))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('installs from its tarball, type-checks in strict mode and delivers end to end', () => {
    const packages = join(scratch, 'pn-packages');
    packAsDocumented(packages);
    const host = join(scratch, 'my-host');
    mkdirSync(join(host, 'src'), { recursive: true });
    writeFileSync(join(host, 'package.json'), markedBlock('README.md', 'embedding-package-json', 'json'));
    writeFileSync(join(host, 'tsconfig.json'), markedBlock('README.md', 'embedding-tsconfig', 'json'));
    writeFileSync(join(host, 'src/main.ts'), markedBlock('README.md', 'embedding-example', 'ts'));

    runDocumented(shellCommands(markedBlock('README.md', 'embedding-install', 'sh')), host, packages);
    // docs/install.md gives the same install, so the two cannot drift apart.
    expect(markedBlock('docs/install.md', 'install-module', 'sh')).toBe(markedBlock('README.md', 'embedding-install', 'sh'));
    // Install scripts were skipped (see NPM_ENV): better-sqlite3's native build takes minutes here
    // (a laptop downloads a prebuilt binary); this repository's build of the same version is copied in.
    expect(versionIn(host, 'better-sqlite3')).toBe(versionIn(REPO, 'better-sqlite3'));
    cpSync(join(REPO, 'node_modules/better-sqlite3/build'), join(host, 'node_modules/better-sqlite3/build'), { recursive: true });
    // One copy of Nest (the host's), and nothing HTTP came with the package.
    expect(existsSync(join(host, 'node_modules/nestjs-process-notifications/node_modules/@nestjs'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/@nestjs/swagger'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/@nestjs/platform-express'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/nestjs-process-notifications/dist/index.d.ts'))).toBe(true);

    // The README's run command, in its prose: "A complete host, **src/main.ts**, which `...` compiles and runs".
    const runCommand = /\*\*src\/main\.ts\*\*, which `([^`]+)`/.exec(readFileSync(join(REPO, 'README.md'), 'utf8'));
    if (!runCommand) throw new Error('README.md does not say how to run the example');
    const run = [runCommand[1]!];
    const output = runDocumented(run, host, packages, { PN_DATABASE_URL: 'sqlite::memory:' });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({
      delivery: { disposition: 'accepted', appended: true },
      retry: { disposition: 'duplicate', appended: false },
      pending: [(result.delivery as { commandId: string }).commandId],
      consumed: { consumed: true },
      stopped: 'loop_stopped',
    });

    // The README npm shows (the one in the tarball): its minimal module compiles and delivers.
    const npmReadme = readFileSync(join(host, 'node_modules/nestjs-process-notifications/README.md'), 'utf8');
    const minimal = /```ts\n([\s\S]*?)```/.exec(npmReadme);
    if (!minimal) throw new Error("the package's README.md has no ts example");
    writeFileSync(join(host, 'src/main.ts'), minimal[1]!);
    expect(runDocumented(run, host, packages)).toMatch(/disposition: 'accepted'[\s\S]*appended: true/);
  }, 300_000);
});
