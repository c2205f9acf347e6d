/*
 * The size limits of a source tree (issue 49): no source file over a number of lines, no folder
 * with more than a number of source files directly in it. A source file is a `.ts` file that is
 * not a spec (`*.spec.ts`) nor a declaration (`*.d.ts`): unit specs sit beside the code they
 * test and would double the count of a well-tested folder without making it harder to read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const isSource = (name: string): boolean => name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts');

/** Every folder under `root` (itself included) with the source files directly in it, paths relative to `root`. */
function folders(root: string, dir = root): Array<{ folder: string; files: string[] }> {
  const entries = readdirSync(dir, { withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && isSource(entry.name)).map((entry) => join(dir, entry.name));
  const below = entries.filter((entry) => entry.isDirectory()).flatMap((entry) => folders(root, join(dir, entry.name)));
  return [{ folder: relative(root, dir) || '.', files }, ...below];
}

/** The source files of `root` with more than `maxLines` lines: `file: N lines`. */
export function oversizedFiles(root: string, maxLines: number): string[] {
  return folders(root)
    .flatMap(({ files }) => files)
    .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length }))
    .filter(({ lines }) => lines > maxLines)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
}

/** The folders of `root` with more than `maxFiles` source files directly in them: `folder: N files`. */
export function crowdedFolders(root: string, maxFiles: number): string[] {
  return folders(root)
    .filter(({ files }) => files.length > maxFiles)
    .map(({ folder, files }) => `${folder}: ${files.length} files`);
}
