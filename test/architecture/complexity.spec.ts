import { functionComplexities, treeComplexities, type FunctionComplexity } from './complexity.js';

/** The trees whose functions are measured: the packages, the server and the console. */
const ROOTS = [
  'libs/process-notifications-contract/src',
  'libs/process-notifications/src',
  'libs/process-notifications-client/src',
  'libs/pn-supervise/src',
  'src',
  'apps/console/src',
];

/**
 * The hot spots of issue 49, each made table-driven (a route table, an option table, an
 * error-class → problem table): each stays under the bar, by file and name.
 */
const TABLE_DRIVEN: readonly (readonly [file: string, name: string])[] = [
  ['apps/console/src/routing/console-route.ts', 'parseRoute'],
  ['apps/console/src/routing/console-route.ts', 'routeHref'],
  ['libs/pn-supervise/src/supervisor-options.parser.ts', 'SupervisorOptionsParser.parse'],
  ['libs/pn-supervise/src/pn/pn-options.parser.ts', 'PnOptionsParser.command'],
  ['src/http/problem-document.ts', 'problemDocumentOf'],
];
const BAR = 10;
/** The hot spots were 29 to 33: no function of the trees comes back to that. */
const CEILING = 29;

describe('cyclomatic complexity (issue 49)', () => {
  const all = ROOTS.flatMap((root) => treeComplexities(root));
  const named = (file: string, name: string): FunctionComplexity[] => all.filter((fn) => fn.at.startsWith(`${file}:`) && fn.name === name);

  it.each(TABLE_DRIVEN)(`%s: %s is under ${BAR}`, (file, name) => {
    const found = named(file, name);
    expect(found).toHaveLength(1);
    expect(found[0]!.complexity).toBeLessThan(BAR);
  });

  it(`no function anywhere reaches ${CEILING}`, () => {
    expect(all.filter((fn) => fn.complexity >= CEILING).map(({ name, at, complexity }) => `${at} ${name}: ${complexity}`)).toEqual([]);
  });

  describe('the count itself', () => {
    const one = (text: string): number[] => functionComplexities('x.ts', text).map((fn) => fn.complexity);

    it('counts 1 plus each branch: if, ?:, &&, ||, ??, their assignments, case, catch and the loops', () => {
      expect(one('function f(a, b) { return a; }')).toEqual([1]);
      expect(one('function f(a, b) { if (a && b || a ?? b) return a ? 1 : 2; a ||= b; a &&= b; a ??= b; }')).toEqual([9]);
      expect(one('function f(a) { switch (a) { case 1: case 2: break; default: } try { g(); } catch { g(); } }')).toEqual([4]);
      expect(one('function f(a) { for (;;) {} for (const x of a) {} for (const k in a) {} while (a) {} do {} while (a); }')).toEqual([6]);
    });

    it('counts a nested function on its own, and names functions by their class or what holds them', () => {
      const found = functionComplexities(
        'x.ts',
        'class C { m(a) { const g = (b) => (b ? 1 : 2); return a && g(a); } }\nconst table = { h: function (c) { return c ?? 0; } };',
      );
      expect(found.map(({ name, at, complexity }) => [name, at, complexity])).toEqual([
        ['C.m', 'x.ts:1', 2],
        ['g', 'x.ts:1', 2],
        ['h', 'x.ts:2', 2],
      ]);
    });
  });
});
