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

/** `file:line: text` of every line under `root` matching `pattern`, outside comments (and outside `persistence/` unless `everywhere`). */
function linesMatching(root: string, pattern: RegExp, everywhere = false): string[] {
  return sources(root)
    .filter((file) => everywhere || !relative(root, file).startsWith('persistence/'))
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

  /**
   * Where "single node or shared database" may be read (issue 49), and why; anywhere else a part
   * asks the injected `Topology` (`acrossNodes`, `onOneNode`, `holds`, `choose`). A dialect's
   * `shared` or the leases' former `enabled`, read anywhere else, would be a second decision.
   */
  const DECISION_READERS: Readonly<Record<string, string>> = {
    'topology/topology-for.ts': 'the decision itself: a shared database’s topology or one node’s, from the store dialect',
    'process-notifications.service.ts': 'answers sharesDatabase to embedders from the injected Topology',
  };

  it('reads the dialect’s shared (or leases.enabled) nowhere but where the topology is chosen and answered', () => {
    const readers = linesMatching(LIBRARY, /\.shared\b|\{[^}]*\bshared\b[^}]*\}\s*=|\.enabled\b/, true).map((line) => line.split(':')[0]!);
    expect([...new Set(readers)].sort()).toEqual(Object.keys(DECISION_READERS).sort());
  });

  it('reads Topology.shared only where the public service answers sharesDatabase', () => {
    expect(linesMatching(LIBRARY, /\btopology\??\.shared\b/).map((line) => line.split(':')[0])).toEqual([
      'process-notifications.service.ts',
    ]);
  });
});
