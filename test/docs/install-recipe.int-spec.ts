import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCUMENTED_PACKAGES_DIR, markedBlock, REPO, shellCommands } from '../support/doc-commands.js';

// Every page that tells how to install a package gives docs/install.md's recipe, word for word:
// the tests run that recipe as written (test/package/pack-and-embed.int-spec.ts,
// test/docs/agent-loop.int-spec.ts), so a page that drifts from it would go untested.
const PAGES = [
  'README.md',
  'docs/agent-loop.md',
  'docs/supervisor.md',
  'libs/process-notifications/README.md',
  'libs/process-notifications-client/README.md',
  'libs/pn-supervise/README.md',
];
const PACKAGES = ['process-notifications-contract', 'nestjs-process-notifications', 'process-notifications-client', 'pn-supervise'];

const shellBlocks = (page: string): string[] =>
  [...readFileSync(join(REPO, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) => shellCommands(match[1]!));

describe('the install recipe', () => {
  const recipe = ['install-pack', 'install-supervisor', 'install-client', 'install-module'].flatMap((marker) =>
    shellCommands(markedBlock('docs/install.md', marker, 'sh')),
  );

  it.each(PAGES)('%s packs and installs as docs/install.md does', (page) => {
    const commands = shellBlocks(page);
    const packing = commands.filter((command) => /^npm pack /.test(command) || command === DOCUMENTED_PACKAGES_DIR);
    const installing = commands.filter((command) => /^npm (install|i) /.test(command));
    expect(packing.length + installing.length).toBeGreaterThan(0);
    for (const command of packing) expect(recipe).toContain(command);
    // A tarball install is one of the recipe's, whole; nothing installs an unpublished name.
    for (const command of installing.filter((line) => line.includes('.tgz'))) expect(recipe).toContain(command);
    for (const command of installing) {
      const names = command.split(/\s+/).slice(2);
      expect(names.filter((name) => PACKAGES.includes(name.replace(/@[^/]*$/, '')))).toEqual([]);
    }
  });
});
