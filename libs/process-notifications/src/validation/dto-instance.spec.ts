import fc from 'fast-check';
import { Expose, plainToInstance, type ClassConstructor } from 'class-transformer';
import { dtoInputs, HOT_DTOS } from '../../../../test/support/dto-inputs.js';
import { DirectTransform, dtoInstance } from './dto-instance.js';

// plainToInstance's instance, and whether the direct build gives the same one: same prototype,
// same own keys in the same order, same values (deep), object values copied, not shared.
function expectSameAsPlainToInstance<T extends object>(dto: ClassConstructor<T>, input: Record<string, unknown>): void {
  const built = dtoInstance(dto, input);
  const reference = plainToInstance(dto, { ...input });
  expect(Object.getPrototypeOf(built)).toBe(dto.prototype);
  expect(Object.keys(built)).toEqual(Object.keys(reference));
  expect(built).toStrictEqual(reference);
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'object' && value !== null) expect((built as Record<string, unknown>)[key]).not.toBe(value);
  }
}

describe('dtoInstance', () => {
  it.each(HOT_DTOS.map((hot) => [hot.name, hot] as const))(
    'builds %s as plainToInstance does, for generated inputs (valid and not, missing fields, other types, unicode, nested values)',
    (_name, hot) => {
      // Only keys of the schema reach it: validateInput rejects any other key first.
      fc.assert(
        fc.property(dtoInputs(hot, { extraKeys: false }), (input) => expectSameAsPlainToInstance(hot.dto, input)),
        { numRuns: 2_000 },
      );
    },
  );

  it('lower-cases UUIDs through CanonicalUuid’s DirectTransform', () => {
    const [{ dto }] = HOT_DTOS;
    const id = 'ABCDEF01-2345-4678-9ABC-DEF012345678';
    expect((dtoInstance(dto, { command_id: id }) as { command_id: string }).command_id).toBe(id.toLowerCase());
  });

  it('applies several DirectTransforms of a property in plainToInstance’s order', () => {
    class Twice {
      @DirectTransform((value) => `${String(value)}-first`)
      @DirectTransform((value) => `${String(value)}-second`)
      word!: string;
    }
    expect(dtoInstance(Twice, { word: 'w' }).word).toBe(plainToInstance(Twice, { word: 'w' }).word);
    expectSameAsPlainToInstance(Twice, { word: 'w' });
  });

  it('leaves a class without DirectTransforms to plainToInstance', () => {
    class Exposed {
      @Expose({ name: 'other' })
      name!: string;
    }
    expectSameAsPlainToInstance(Exposed, { other: 'x', name: 'y' });
  });
});
