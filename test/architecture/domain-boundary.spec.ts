import { entityImports, lowerCasings, withoutComments } from './domain-boundary.js';
import { scratchTree } from './scratch-tree.js';

const LIBRARY = 'libs/process-notifications/src';

/**
 * Where the library may lower-case, each with why: the one id normaliser.
 */
const LOWER_CASING_ALLOWED = [
  // The normaliser itself: every id is lower-cased through it, where it enters the library.
  'validation/normalise-id.ts',
];

/**
 * Where the server (`src/`) may lower-case, each with why: never an id (those go through the
 * library's `normaliseId` where they enter, a route's pipe, a guard, a hook), only names and
 * tokens of HTTP that are case-insensitive by their own rules.
 */
const SERVER_LOWER_CASING_ALLOWED = [
  // The Content-Encoding header's value: a content coding, case-insensitive (RFC 9110 8.4.1).
  'http/read-json-body.pipe.ts',
  // The Content-Type header's media type and parameter names, case-insensitive (RFC 9110 8.3.1).
  'http/json-media-type.ts',
  // A header's name, as Node keys a request's headers: in lower case (RFC 9110 5.1).
  'http/request-header.decorator.ts',
];

/**
 * The domain's own types (issue 49): entities stay in `persistence/`, whose stores answer the
 * domain's types (`model/`); ids are normalised once, where they enter.
 */
describe('domain boundary', () => {
  it.each([LIBRARY, 'src'])('%s imports no entity outside persistence/', (root) => {
    expect(entityImports(root)).toEqual([]);
  });

  it('the library lower-cases ids only in its normaliser', () => {
    expect(lowerCasings(LIBRARY, LOWER_CASING_ALLOWED)).toEqual([]);
  });

  it('the server lower-cases no id: it normalises them with the library normaliser where they enter', () => {
    expect(lowerCasings('src', SERVER_LOWER_CASING_ALLOWED)).toEqual([]);
  });

  describe('the check itself', () => {
    const tree = scratchTree('pn-domain-boundary-');
    const write = tree.write;

    it('finds an entity imported by file or by name, typed or not, re-exported or dynamic, outside persistence/ only', () => {
      write('loops/a.ts', "import type { LoopEntity } from '../persistence/sessions/loop.entity.js';\n");
      write('views.ts', "import {\n  JournalRecordEntity,\n  CONSUMED_KIND,\n} from './persistence/journal/records.js';\n");
      write('index.ts', "export { SessionEntity } from './persistence/sessions/session.entity.js';\n");
      write('deep/b.ts', "const m = await import('../persistence/x.entity.js');\n");
      write('persistence/sessions/rows.ts', "import { SessionEntity } from './session.entity.js';\n");
      write(
        'loops/ok.ts',
        "import type { Loop } from '../model/loop.interface.js';\nimport { toDomain } from '../persistence/sessions/loop.mapper.js';\n",
      );
      expect(entityImports(tree.root()).sort()).toEqual([
        'deep/b.ts: ../persistence/x.entity.js',
        'index.ts: ./persistence/sessions/session.entity.js',
        'loops/a.ts: ../persistence/sessions/loop.entity.js',
        'views.ts: ./persistence/journal/records.js',
      ]);
    });

    it('lets specs and comments name entities', () => {
      write('loops/a.spec.ts', "import { LoopEntity } from '../persistence/sessions/loop.entity.js';\n");
      write('loops/b.ts', "// import { LoopEntity } from '../persistence/sessions/loop.entity.js';\n/* SessionEntity */\n");
      expect(entityImports(tree.root())).toEqual([]);
    });

    it('finds lower-casing outside the allowed files, not in comments, strings or specs', () => {
      write('validation/normalise-id.ts', 'export const n = (id: string) => id.toLowerCase();\n');
      write('commands/h.ts', "const a = 1;\nconst caller = command.sessionId\n  .toLowerCase();\nconst b = x.toLocaleLowerCase('en');\n");
      write('api.ts', "// sessionId.toLowerCase() here once\nconst s = 'call .toLowerCase() on it';\n");
      write('api.spec.ts', 'expect(id.toLowerCase()).toBe(id);\n');
      expect(lowerCasings(tree.root(), ['validation/normalise-id.ts'])).toEqual([
        'commands/h.ts:3: .toLowerCase();',
        "commands/h.ts:4: const b = x.toLocaleLowerCase('en');",
      ]);
    });

    it('strips comments but keeps their line breaks, and strings unless told to blank them', () => {
      expect(withoutComments("a // b\nc /* d\ne */ f 'g // h'")).toBe("a \nc \n f 'g // h'");
      expect(withoutComments("a /* x */ 'b.toLowerCase()' + `${c.toLowerCase()}`", true)).toBe("a  '' + `${c.toLowerCase()}`");
    });
  });
});
