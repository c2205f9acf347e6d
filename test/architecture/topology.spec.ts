import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const LIBRARY = 'libs/process-notifications/src';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `file:line: text` of every line under `root` matching `pattern`, outside `persistence/` and comments. */
function linesMatching(root: string, pattern: RegExp): string[] {
  return sources(root)
    .filter((file) => !relative(root, file).startsWith('persistence/'))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          pattern.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
}

/**
 * Single node or shared database is decided once (issue 49): the injected `Topology` (chosen from
 * the store's dialect by `persistence/connection/topology.provider.ts`) behaves as one or the
 * other, so no service outside `persistence/` tests the leases for it, and only the public
 * service's `sharesDatabase` reads the choice itself.
 */
describe('topology', () => {
  it.each([LIBRARY, 'src'])('%s asks no service whether leases are enabled outside persistence/', (root) => {
    expect(linesMatching(root, /\bleases\??\.enabled\b/)).toEqual([]);
  });

  it('reads Topology.shared only where the public service answers sharesDatabase', () => {
    expect(linesMatching(LIBRARY, /\btopology\??\.shared\b/).map((line) => line.split(':')[0])).toEqual([
      'process-notifications.service.ts',
    ]);
  });
});
