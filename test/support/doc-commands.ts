import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * How the documented recipe makes the tarballs' directory: a new one (no fixed path a shared
 * machine's users would collide on), in `$PN_PACKAGES`. A test gives its own directory as the
 * variable instead (each command runs in a shell of its own, which a variable would not outlive).
 */
export const DOCUMENTED_PACKAGES_DIR = 'PN_PACKAGES=$(mktemp -d)';

/**
 * The fenced block that follows `<!-- marker -->` in a Markdown file of the repository, exactly
 * as a user would copy it.
 */
export function markedBlock(file: string, marker: string, language: string): string {
  const page = readFileSync(join(REPO, file), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!match) throw new Error(`${file} has no <!-- ${marker} --> ${language} block`);
  return match[1]!;
}

/** The commands of a shell block: continuation lines joined, comments and blank lines left out. */
export function shellCommands(block: string): string[] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/**
 * What npm is told through the environment, not the command line, so that the documented commands
 * run as written: the cache first (the registry is asked only for what it lacks), no audit or
 * fund requests, and no install scripts: the libraries are built before the tests run (their
 * prepack would build them again) and better-sqlite3's native build is copied from this repository.
 */
export const NPM_ENV: Record<string, string> = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
  npm_config_ignore_scripts: 'true',
};

/** Runs documented commands with `sh` in `cwd`, as written, `$PN_PACKAGES` being `packages`. */
export function runDocumented(commands: string[], cwd: string, packages: string, env: Record<string, string> = {}): string {
  return commands
    .filter((command) => command !== DOCUMENTED_PACKAGES_DIR)
    .map((command) =>
      execFileSync('sh', ['-c', command], {
        cwd,
        env: { ...process.env, ...NPM_ENV, PN_PACKAGES: packages, ...env },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300_000,
      }),
    )
    .join('');
}

/**
 * docs/install.md's packing step, run in this repository into `packages`. `npm run build` is left
 * out: the test run has built already (`npm test` builds first), and building again takes a minute.
 */
export function packAsDocumented(packages: string): void {
  // What the recipe's `mktemp -d` makes: a new, empty directory.
  mkdirSync(packages, { recursive: true });
  const commands = shellCommands(markedBlock('docs/install.md', 'install-pack', 'sh')).filter((command) => command !== 'npm run build');
  runDocumented(commands, REPO, packages);
}
