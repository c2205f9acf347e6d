import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { IsString, Min, ValidateIf, ValidateNested, validateSync } from 'class-validator';
import { ProcessCompletionNotificationDto } from '../commands/notify-process-completion/process-completion-notification.dto.js';
import { ProcessLifecycleRecordDto } from '../commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import { LIFECYCLE_VECTORS } from '../../../../test/support/lifecycle-vectors.js';
import { fieldVariants, NOTIFICATION_VECTORS, type NotificationVector } from '../../../../test/support/notification-vectors.js';
import { validityCheckOf } from './validity-check.js';

// validateSync's verdict, which the check must reproduce exactly.
const validBy = (instance: object) => validateSync(instance, { forbidUnknownValues: false }).length === 0;

// Each vector, and each vector with one field changed: wrong type, null, missing, upper case.
const variants = (input: Record<string, unknown>) =>
  fieldVariants(input, (value) => [42, null, undefined, String(value).toUpperCase(), '']);

describe('validityCheckOf', () => {
  const cases: Array<[string, ClassConstructor<object>, readonly NotificationVector[]]> = [
    ['ProcessCompletionNotificationDto', ProcessCompletionNotificationDto, NOTIFICATION_VECTORS],
    ['ProcessLifecycleRecordDto', ProcessLifecycleRecordDto, LIFECYCLE_VECTORS],
  ];

  it.each(cases)('gives validateSync’s verdict for %s on every contract vector and its variants', (_name, dto, list) => {
    const check = validityCheckOf(dto);
    expect(check).not.toBeNull();
    let valid = 0;
    let invalid = 0;
    for (const vector of list) {
      if (typeof vector.input !== 'object' || vector.input === null || Array.isArray(vector.input)) continue;
      for (const input of variants(vector.input)) {
        const instance = plainToInstance(dto, input);
        const expected = validBy(instance);
        expect({ vector: vector.name, input, valid: check!(instance) }).toEqual({ vector: vector.name, input, valid: expected });
        if (expected) valid += 1;
        else invalid += 1;
      }
    }
    // Both verdicts were exercised, many times.
    expect(valid).toBeGreaterThan(5);
    expect(invalid).toBeGreaterThan(50);
  });

  it('skips a property whose ValidateIf condition is false, as validateSync does', () => {
    class Conditional {
      kind?: string;
      @ValidateIf((object: Conditional) => object.kind === 'named')
      @IsString()
      name?: unknown;
    }
    const check = validityCheckOf(Conditional)!;
    for (const plain of [
      { kind: 'other', name: 1 },
      { kind: 'named', name: 1 },
      { kind: 'named', name: 'x' },
    ]) {
      const instance = plainToInstance(Conditional, plain);
      expect(check(instance)).toBe(validBy(instance));
    }
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
