/** Types of folder-graph-core.mjs (the folder-level import graph, see there). */

/** Whether a file name is a source file of the graph. */
export declare const isSource: (name: string) => boolean;

/** A file's first folder under the root, or `./name` for a file directly in it. */
export declare function folderOf(file: string): string;

/** folder → the folders its files import, each with one file-level edge (`file → specifier`). */
export declare function folderGraphOf(files: readonly string[], read: (file: string) => string): Map<string, Map<string, string>>;

/** The strongly connected components with more than one folder, each sorted. */
export declare function folderCycles(graph: Map<string, Map<string, string>>): string[][];
