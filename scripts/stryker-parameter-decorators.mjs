// Works around a StrykerJS 9.6 instrumenter bug: Babel's TypeScript parser puts the decorators of
// a parameter that has a default value (`@Optional() @Inject(TOKEN) options: T = {}`) on the
// parameter's identifier, and @babel/generator prints a parameter's decorators only from the
// parameter itself, so the instrumented file loses them and Nest can no longer inject the
// class (JournalWriter, JournalRetention): every test that builds the module fails before the
// first mutant. Loaded as a Stryker plugin (stryker.config.mjs), it makes the printer print them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const generatorEntry = require.resolve('@babel/generator');
require(generatorEntry); // first the entry: its modules require one another in this order
const { generatorInfosMap } = require(generatorEntry.replace(/index\.js$/, 'nodes.js'));

// [print method, node id, parens test] of the `x = default` node, which a parameter with a
// default value is.
const info = generatorInfosMap.get('AssignmentPattern');
const printAssignmentPattern = info[0];
info[0] = function (node, ...rest) {
  if (node.left?.decorators?.length && !node.decorators?.length) {
    this.printJoin(node.left.decorators, undefined, undefined, undefined, undefined, true);
  }
  return printAssignmentPattern.call(this, node, ...rest);
};

export const strykerPlugins = [];
