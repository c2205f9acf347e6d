/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 32;

// A run of string characters that need no decoding: any code unit from space up but `"` and `\`.
const PLAIN = /[\u0020\u0021\u0023-\u005B\u005D-\uFFFF]*/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parses RFC 8259 JSON more strictly than `JSON.parse`: duplicate keys (at any depth) and nesting
 * deeper than {@link MAX_JSON_DEPTH} are errors. A `\uD800`-style escape of a lone surrogate is
 * JSON syntax (spec section 8): it parses, and the string then fails validation on its own field.
 * Throws a `SyntaxError` whose message is safe to show to the client.
 * Objects have a null prototype and every key, `__proto__` included, becomes a plain own
 * property, so a closed schema sees (and rejects) it like any other unknown key.
 */
export function parseStrictJson(text: string): unknown {
  let at = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at offset ${at}`);
  };
  const skipWhitespace = (): void => {
    for (let code = text.charCodeAt(at); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(at)) at++;
  };
  const expect = (literal: string, value: unknown): unknown => {
    if (!text.startsWith(literal, at)) fail('unexpected token');
    at += literal.length;
    return value;
  };

  const parseString = (): string => {
    at++; // opening quote
    let out = '';
    for (;;) {
      // Most strings are one plain run: sliced at once, not built a character at a time.
      PLAIN.lastIndex = at;
      PLAIN.test(text);
      if (PLAIN.lastIndex > at) {
        out += text.slice(at, PLAIN.lastIndex);
        at = PLAIN.lastIndex;
      }
      if (at >= text.length) fail('unterminated string');
      const char = text[at]!;
      if (char === '"') {
        at++;
        break;
      }
      if (char !== '\\') fail('control character in string');
      const escape = text[at + 1];
      if (escape === 'u') {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad unicode escape');
        out += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else if (escape !== undefined && escape in ESCAPES) {
        out += ESCAPES[escape];
        at += 2;
      } else {
        fail('bad escape');
      }
    }
    return out;
  };

  const parseNumber = (): number => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match) return fail('unexpected token');
    at += match[0].length;
    return Number(match[0]);
  };

  const parseValue = (depth: number): unknown => {
    skipWhitespace();
    const char = text[at];
    if (char === '{' || char === '[') {
      if (depth >= MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
      return char === '{' ? parseObject(depth + 1) : parseArray(depth + 1);
    }
    if (char === '"') return parseString();
    if (char === 't') return expect('true', true);
    if (char === 'f') return expect('false', false);
    if (char === 'n') return expect('null', null);
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return parseNumber();
    return fail(char === undefined ? 'unexpected end of input' : 'unexpected token');
  };

  const parseObject = (depth: number): Record<string, unknown> => {
    at++; // {
    const object: Record<string, unknown> = Object.create(null);
    skipWhitespace();
    if (text[at] === '}') {
      at++;
      return object;
    }
    for (;;) {
      skipWhitespace();
      if (text[at] !== '"') fail('expected a string key');
      const key = parseString();
      if (Object.hasOwn(object, key)) fail(`duplicate key "${key}"`);
      skipWhitespace();
      if (text[at] !== ':') fail('expected ":"');
      at++;
      // A null-prototype object has no __proto__ setter: even that key becomes an own property.
      object[key] = parseValue(depth);
      skipWhitespace();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return object;
      }
      fail('expected "," or "}"');
    }
  };

  const parseArray = (depth: number): unknown[] => {
    at++; // [
    const array: unknown[] = [];
    skipWhitespace();
    if (text[at] === ']') {
      at++;
      return array;
    }
    for (;;) {
      array.push(parseValue(depth));
      skipWhitespace();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return array;
      }
      fail('expected "," or "]"');
    }
  };

  const value = parseValue(0);
  skipWhitespace();
  if (at !== text.length) fail('unexpected data after the JSON value');
  return value;
}
