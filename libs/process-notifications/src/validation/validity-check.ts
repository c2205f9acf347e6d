import type { ClassConstructor } from 'class-transformer';
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

type Instance = Record<string, unknown>;
type Condition = (object: Instance, value: unknown) => boolean;

interface ConstraintCheck {
  readonly validateIf?: Condition;
  readonly validators: ReadonlyArray<{ validate(value: unknown, args: ValidationArguments): unknown }>;
  readonly constraints: unknown[];
}

interface PropertyCheck {
  readonly property: string;
  readonly conditions: readonly Condition[];
  readonly checks: readonly ConstraintCheck[];
}

/** True when every class-validator rule of the DTO passes, the same answer `validateSync` gives. */
export type ValidityCheck = (instance: object) => boolean;

// Built once per DTO class; null: the class uses something the check does not mirror.
const compiled = new WeakMap<ClassConstructor<object>, ValidityCheck | null>();

/**
 * A pass/fail check over a DTO's own class-validator metadata, for the hot path: it runs the
 * same constraint validators `validateSync` would (conditions, `validateIf`, in the same order)
 * without building a ValidationError per property for valid input, which cost most of a notify
 * request's validation time and allocations (see apps/bench). Messages are not its business:
 * on failure the caller runs `validateSync` for the exact errors. Returns null for a class whose
 * rules it does not mirror (nested, `each`, async, IS_DEFINED, whitelist, promise rules); such a
 * class always goes through `validateSync`.
 */
export function validityCheckOf(dto: ClassConstructor<object>): ValidityCheck | null {
  let check = compiled.get(dto);
  if (check === undefined) {
    check = compile(dto);
    compiled.set(dto, check);
  }
  return check;
}

function compile(dto: ClassConstructor<object>): ValidityCheck | null {
  const storage = getMetadataStorage();
  // The arguments validateSync passes for options { forbidUnknownValues: false } and no groups.
  const grouped = storage.groupByPropertyName(storage.getTargetValidationMetadatas(dto, '', false, false, undefined));
  const properties: PropertyCheck[] = [];
  for (const [property, metadatas] of Object.entries(grouped)) {
    const conditions: Condition[] = [];
    const checks: ConstraintCheck[] = [];
    for (const metadata of metadatas) {
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        conditions.push(metadata.constraints[0] as Condition);
        continue;
      }
      if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION || metadata.each) return null;
      const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
      if (constraints.some((constraint) => constraint.async)) return null;
      checks.push({
        validateIf: metadata.validateIf,
        validators: constraints.map((constraint) => constraint.instance),
        constraints: metadata.constraints,
      });
    }
    properties.push({ property, conditions, checks });
  }
  const targetName = dto.name;
  return (instance) => {
    const object = instance as Instance;
    for (const { property, conditions, checks } of properties) {
      const value = object[property];
      if (!conditions.every((condition) => condition(object, value))) continue;
      for (const { validateIf, validators, constraints } of checks) {
        if (validateIf && !validateIf(object, value)) continue;
        for (const validator of validators) {
          const valid = validator.validate(value, { targetName, property, object, value, constraints });
          // A promise here is a rule validateSync ignores; let it decide.
          if (!valid || valid instanceof Promise) return false;
        }
      }
    }
    return true;
  };
}
