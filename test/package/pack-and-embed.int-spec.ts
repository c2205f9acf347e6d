import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
// The versions this repository is built and tested with.
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

// The README's embedding example, exactly as a user would copy it.
function readmeExample(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const match = /<!-- embedding-example -->\n```ts\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README.md has no <!-- embedding-example --> block');
  return match[1]!;
}

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}): string =>
  execFileSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// What a new user does: pack the library, install the tarball into a fresh Nest host outside
// this repository, type-check the README's example against it in strict mode, and run it.
describe('the package, installed into a fresh host', () => {
  let host: string;
  beforeAll(() => (host = mkdtempSync(join(tmpdir(), 'pn-host-'))));
  afterAll(() => rmSync(host, { recursive: true, force: true }));

  it('installs from its tarball, type-checks in strict mode and delivers end to end', () => {
    const packed = run('npm', ['pack', './libs/process-notifications', '--pack-destination', host, '--silent'], repo)
      .trim()
      .split('\n')
      .at(-1)!;
    const peers = [
      '@nestjs/common',
      '@nestjs/core',
      '@nestjs/cqrs',
      '@nestjs/typeorm',
      'typeorm',
      'class-validator',
      'class-transformer',
      'rxjs',
      'reflect-metadata',
    ];
    writeFileSync(
      join(host, 'package.json'),
      JSON.stringify({
        name: 'pn-host',
        private: true,
        type: 'module',
        dependencies: {
          'nestjs-process-notifications': `file:./${packed}`,
          ...Object.fromEntries(peers.map((name) => [name, versionOf(name)])),
          'better-sqlite3': versionOf('better-sqlite3'),
        },
        devDependencies: { typescript: versionOf('typescript'), '@types/node': versionOf('@types/node') },
      }),
    );
    writeFileSync(
      join(host, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          types: ['node'],
          outDir: 'dist',
        },
        include: ['src'],
      }),
    );
    mkdirSync(join(host, 'src'));
    writeFileSync(join(host, 'src/main.ts'), readmeExample());

    // Install scripts skipped: the one that matters, better-sqlite3's native build, takes minutes
    // here (a laptop downloads a prebuilt binary); the binary this repository built is copied in.
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], host);
    cpSync(join(repo, 'node_modules/better-sqlite3/build'), join(host, 'node_modules/better-sqlite3/build'), { recursive: true });
    // One copy of Nest (the host's), and nothing HTTP came with the package.
    expect(existsSync(join(host, 'node_modules/nestjs-process-notifications/node_modules/@nestjs'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/@nestjs/swagger'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/@nestjs/platform-express'))).toBe(false);
    expect(existsSync(join(host, 'node_modules/nestjs-process-notifications/dist/index.d.ts'))).toBe(true);

    run(process.execPath, [join(host, 'node_modules/typescript/bin/tsc'), '-p', host], host);
    const output = run(process.execPath, [join(host, 'dist/main.js')], host, { PN_DATABASE_URL: 'sqlite::memory:' });
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
    writeFileSync(join(host, 'src/npm-readme.ts'), minimal[1]!);
    run(process.execPath, [join(host, 'node_modules/typescript/bin/tsc'), '-p', host], host);
    expect(run(process.execPath, [join(host, 'dist/npm-readme.js')], host)).toMatch(/disposition: 'accepted'[\s\S]*appended: true/);
  }, 240_000);
});
