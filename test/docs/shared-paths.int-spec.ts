import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/doc-commands.js';
import { documentationPages } from './doc-references.js';

// A directory every user of a machine shares: a fixed name in it collides with another user's
// (or another run's) files, or is taken over by them.
const SHARED = /(?<=^|[\s"'=:(])(?:\/tmp|\/var\/tmp|\/dev\/shm)\/[^\s"')]*/g;

/** Each fenced block of `markdown` (what a reader copies), with the line it starts on. */
function fencedBlocks(markdown: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  const pattern = /^```[^\n]*\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(pattern)) blocks.push({ line: markdown.slice(0, match.index).split('\n').length, text: match[1]! });
  return blocks;
}

describe('the documentation on a shared machine (issue 48)', () => {
  it('names no fixed path under /tmp, /var/tmp or /dev/shm in any block a reader copies: each makes its own (mktemp -d)', () => {
    const found = documentationPages(REPO).flatMap((page) =>
      fencedBlocks(readFileSync(join(REPO, page), 'utf8')).flatMap((block) =>
        block.text
          .split('\n')
          .flatMap((text, i) => [...text.matchAll(SHARED)].map((match) => `${page}:${block.line + 1 + i}: ${match[0]}`)),
      ),
    );
    expect(found).toEqual([]);
  });

  it('finds such a path where one is written', () => {
    expect(fencedBlocks('text\n```sh\nmkdir /tmp/pn-packages\nPN=$(mktemp -d)\n```\n')).toEqual([
      { line: 2, text: 'mkdir /tmp/pn-packages\nPN=$(mktemp -d)\n' },
    ]);
    expect([...'rm -rf /tmp/pn-packages && cp x "/var/tmp/y" && ls ./tmp/z'.matchAll(SHARED)].map((m) => m[0])).toEqual([
      '/tmp/pn-packages',
      '/var/tmp/y',
    ]);
  });
});
