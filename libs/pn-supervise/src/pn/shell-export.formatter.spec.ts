import { execFileSync } from 'node:child_process';
import { ShellExportFormatter } from './shell-export.formatter.js';

// What `eval "$(pn session open)"` does with the lines: a real sh reads them back unchanged.
describe('ShellExportFormatter', () => {
  it.each([['plain-token_0123'], ["it's"], ['$HOME `id` $(id) "quoted" \\ back'], ['a b\tc']])('%j survives eval in sh', (value) => {
    const printed = execFileSync('sh', ['-c', `eval "$1"; printf %s "$PN_X"`, 'sh', ShellExportFormatter.line('PN_X', value)], {
      encoding: 'utf8',
    });
    expect(printed).toBe(value);
  });
});
