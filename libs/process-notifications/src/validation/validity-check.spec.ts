import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import { IsString, Min, ValidateIf, ValidateNested, validateSync } from 'class-validator';
import { dtoInputs, HOT_DTOS } from '../../../../test/support/dto-inputs.js';
import { validityCheckOf } from './validity-check.js';

// validateSync's verdict, which the check must reproduce exactly.
const validBy = (instance: object) => validateSync(instance, { forbidUnknownValues: false }).length === 0;

describe('validityCheckOf', () => {
  it.each(HOT_DTOS.map((hot) => [hot.name, hot] as const))(
    'gives validateSync’s verdict for %s on generated inputs, valid and invalid alike',
    (_name, hot) => {
      const check = validityCheckOf(hot.dto);
      expect(check).not.toBeNull();
      const verdicts = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(dtoInputs(hot, { extraKeys: true }), (input) => {
          const instance = plainToInstance(hot.dto, { ...input });
          const expected = validBy(instance);
          expect(check!(instance)).toBe(expected);
          verdicts[expected ? 'valid' : 'invalid'] += 1;
        }),
        { numRuns: 2_000 },
      );
      // Both verdicts were exercised, many times.
      expect(verdicts.valid).toBeGreaterThan(50);
      expect(verdicts.invalid).toBeGreaterThan(200);
    },
  );

  it('skips a property whose ValidateIf condition is false, as validateSync does', () => {
    class Conditional {
      kind?: string;
      @ValidateIf((object: Conditional) => object.kind === 'named')
      @IsString()
      name?: unknown;
    }
    const check = validityCheckOf(Conditional)!;
    fc.assert(
      fc.property(
        fc.record({ kind: fc.constantFrom('named', 'other', undefined), name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
        (plain) => {
          const instance = plainToInstance(Conditional, plain);
          expect(check(instance)).toBe(validBy(instance));
        },
      ),
    );
  });

  it('declines classes whose rules it does not mirror, so they always go through validateSync', () => {
    class Child {
      @Min(1)
      n!: number;
    }
    class Nested {
      @ValidateNested()
      child!: Child;
    }
    class Each {
      @IsString({ each: true })
      names!: string[];
    }
    expect(validityCheckOf(Nested)).toBeNull();
    expect(validityCheckOf(Each)).toBeNull();
    expect(validityCheckOf(Child)).not.toBeNull();
  });
});
