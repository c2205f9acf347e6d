import fc from 'fast-check';
import { MAX_JSON_DEPTH, parseStrictJson } from './strict-json.js';

describe('parseStrictJson', () => {
  it('reads every JSON document as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('', ' ', '\n\t '), (value, space) => {
        const text = JSON.stringify(value, null, space || undefined);
        expect(parseStrictJson(`${space}${text}${space}`)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('decodes escapes, including surrogate pairs', () => {
    expect(parseStrictJson('"a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"')).toBe('a"\\/\b\f\n\r\t\u00e9\u{1F600}');
    expect(parseStrictJson('[-0.5e+2, 0, 1E3, true, false, null]')).toEqual([-50, 0, 1000, true, false, null]);
  });

  it('keeps __proto__ and constructor as plain own keys of a null-prototype object', () => {
    const value = parseStrictJson('{"__proto__":{"polluted":true},"constructor":1,"nested":{"a":1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.getPrototypeOf(value.nested)).toBeNull();
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor', 'nested']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['duplicate key', '{"a":1,"a":2}'],
    ['duplicate key through an escape', '{"a":1,"\\u0061":2}'],
    ['duplicate key deep down', '[1,{"x":[{"a":1,"b":{"c":0,"c":0}}]}]'],
    ['duplicate __proto__', '{"__proto__":1,"__proto__":2}'],
    ['empty input', ''],
    ['trailing comma in object', '{"a":1,}'],
    ['trailing comma in array', '[1,]'],
    ['missing colon', '{"a" 1}'],
    ['unquoted key', '{a:1}'],
    ['single quotes', "'a'"],
    ['leading zero', '01'],
    ['bare minus', '-'],
    ['fraction without digits', '1.'],
    ['exponent without digits', '1e'],
    ['plus sign', '+1'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['hex escape', '"\\x41"'],
    ['short unicode escape', '"\\u12"'],
    ['raw control character', '"a\u0000b"'],
    ['raw newline', '"a\nb"'],
    ['unterminated string', '"abc'],
    ['two values', '1 2'],
    ['comment', '{} // no'],
    ['truncated literal', 'tru'],
    ['unclosed array', '[1'],
  ])('rejects %s', (_name, text) => {
    expect(() => parseStrictJson(text)).toThrow(SyntaxError);
  });

  it.each([
    ['lone high surrogate', '"\\ud800"', '\ud800'],
    ['lone low surrogate', '"x\\udc00"', 'x\udc00'],
    ['reversed surrogates', '"\\udc00\\ud800"', '\udc00\ud800'],
  ])('parses a %s escape: it is JSON syntax (spec section 8), left to validation', (_name, text, value) => {
    expect(parseStrictJson(text)).toBe(value);
  });

  it(`accepts nesting up to ${MAX_JSON_DEPTH} levels and rejects deeper`, () => {
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    expect(() => parseStrictJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseStrictJson(nested(MAX_JSON_DEPTH + 1))).toThrow(/nesting deeper/);
    expect(() => parseStrictJson('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1))).toThrow(/nesting deeper/);
    // Deep enough to overflow a recursive parser's stack without the limit.
    expect(() => parseStrictJson(nested(100_000))).toThrow(/nesting deeper/);
  });
});
