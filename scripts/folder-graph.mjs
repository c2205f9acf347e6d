// The folder figures of a source tree (issue 49), in Markdown: its top-level folders (a file
// directly in the root is a node of its own, `./name`) with their source files and lines, the
// largest folder's share of the lines, the folder-level import edges and cycles, and the largest
// folder one level down. The graph is folder-graph-core.mjs's, the one the architecture test
// checks; lines are counted as test/architecture/source-size.ts counts them. No dependencies.
// From the repository root:
//   node scripts/folder-graph.mjs [root] [--rev <git-rev>] [--json]
// root defaults to libs/process-notifications/src; --rev reads the tree at that revision
// (`git ls-tree`, `git show`) without a checkout; --json prints the same data as JSON.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderCycles, folderGraphOf, folderOf, isSource } from './folder-graph-core.mjs';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const lineCount = (text) => text.replace(/\n$/, '').split('\n').length;

function parseArguments(argv) {
  const options = { root: 'libs/process-notifications/src', rev: undefined, json: false };
  let given;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--json') options.json = true;
    else if (argv[i] === '--rev') {
      options.rev = argv[i + 1];
      i += 1;
      if (!options.rev) throw new Error('--rev needs a revision');
    } else if (argv[i].startsWith('-')) throw new Error(`unknown option ${argv[i]}`);
    else given = argv[i];
  }
  // The default root is the repository's, wherever the script runs from; a given one is the caller's.
  if (given !== undefined) options.root = given;
  options.absolute = given === undefined ? resolve(repository, options.root) : resolve(given);
  return options;
}

/** The source files under `root` (paths relative to it, with `/`) and a reader of their text. */
function workingTree(absolute) {
  const walk = (dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = `${dir}${sep}${name}`;
      if (statSync(path).isDirectory()) return walk(path);
      return isSource(name) ? [relative(absolute, path).split(sep).join('/')] : [];
    });
  return { files: walk(absolute), read: (file) => readFileSync(`${absolute}${sep}${file.split('/').join(sep)}`, 'utf8') };
}

function treeAt(rev, absolute) {
  const prefix = relative(repository, absolute).split(sep).join('/');
  const git = (...args) => execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files = git('ls-tree', '-r', '--name-only', '--full-tree', rev, '--', `${prefix}/`)
    .split('\n')
    .filter((path) => path.startsWith(`${prefix}/`) && isSource(posix.basename(path)))
    .map((path) => path.slice(prefix.length + 1));
  return { files, read: (file) => git('show', `${rev}:${prefix}/${file}`) };
}

const percent = (part, whole) => Math.round((part / whole) * 1000) / 10;

/** One row per node of `files` (paths relative to the folder), by lines, largest first. */
function rows(files, lines, total) {
  const nodes = new Map();
  for (const file of files) {
    const node = folderOf(file);
    const row = nodes.get(node) ?? { name: node, folder: !node.startsWith('./'), direct: 0, files: 0, lines: 0 };
    nodes.set(node, row);
    row.files += 1;
    row.lines += lines.get(file);
    if (file.split('/').length <= 2) row.direct += 1;
  }
  return [...nodes.values()]
    .map((row) => ({ ...row, share: percent(row.lines, total) }))
    .sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
}

function figures({ root, absolute, rev }) {
  const tree = rev === undefined ? workingTree(absolute) : treeAt(rev, absolute);
  const texts = new Map(tree.files.map((file) => [file, tree.read(file)]));
  const lines = new Map([...texts].map(([file, text]) => [file, lineCount(text)]));
  const graph = folderGraphOf(tree.files, (file) => texts.get(file));
  const total = [...lines.values()].reduce((sum, n) => sum + n, 0);
  const folders = rows(tree.files, lines, total);
  const largest = folders.filter((row) => row.folder).sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name))[0];
  const edges = [...graph]
    .flatMap(([from, targets]) => [...targets].map(([to, via]) => ({ from, to, via })))
    .sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  const inside = largest && {
    folder: largest.name,
    rows: rows(
      tree.files.filter((file) => file.startsWith(`${largest.name}/`)).map((file) => file.slice(largest.name.length + 1)),
      new Map(
        [...lines].filter(([file]) => file.startsWith(`${largest.name}/`)).map(([file, n]) => [file.slice(largest.name.length + 1), n]),
      ),
      total,
    ).map((row) => ({ ...row, shareOfFolder: percent(row.lines, largest.lines) })),
  };
  return {
    root,
    rev: rev ?? null,
    files: tree.files.length,
    lines: total,
    folders,
    largest: largest ? { name: largest.name, lines: largest.lines, share: largest.share } : null,
    edges,
    cycles: folderCycles(graph),
    inside,
  };
}

const label = (row) => (row.folder ? `\`${row.name}/\`` : `\`${row.name}\``);

function table(rowsOf, extra) {
  const head = ['| folder | source files directly in it | source files in all | lines | share of the lines |'];
  const rule = ['|---|---:|---:|---:|---:|'];
  if (extra) {
    head[0] += ` ${extra} |`;
    rule[0] += '---:|';
  }
  const body = rowsOf.map(
    (row) =>
      `| ${label(row)} | ${row.direct} | ${row.files} | ${row.lines} | ${row.share.toFixed(1)} % |` +
      (extra ? ` ${row.shareOfFolder.toFixed(1)} % |` : ''),
  );
  return [...head, ...rule, ...body].join('\n');
}

function markdown(data) {
  const at = data.rev ? ` at \`${data.rev}\`` : '';
  const out = [
    `## Folders of \`${data.root}\`${at}`,
    '',
    `${data.files} source files, ${data.lines} lines (a file directly in the root is a node of its own, \`./name\`).`,
    '',
    table(data.folders),
    '',
  ];
  if (data.largest) {
    out.push(
      `Largest folder: \`${data.largest.name}/\`, ${data.largest.lines} of ${data.lines} lines (${data.largest.share.toFixed(1)} %).`,
      '',
    );
  }
  out.push(
    `### Folder-level import edges (${data.edges.length})`,
    '',
    '```',
    ...data.edges.map(({ from, to }) => `${from} → ${to}`),
    '```',
    '',
  );
  out.push('### Folder cycles', '');
  out.push(...(data.cycles.length === 0 ? ['none'] : data.cycles.map((knot) => `- ${knot.join(', ')}`)), '');
  if (data.inside) {
    out.push(`### \`${data.inside.folder}/\` one level down`, '', table(data.inside.rows, `share of \`${data.inside.folder}/\``), '');
  }
  return out.join('\n');
}

const options = parseArguments(process.argv.slice(2));
const data = figures(options);
process.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : markdown(data));
