import { plainToInstance, Transform, type ClassConstructor } from 'class-transformer';

/** A plain-to-class value transform that needs only the value (no key, object or options). */
export type ValueTransform = (value: unknown) => unknown;

// Per DTO class (its own decorators, not a base class's), per property: its DirectTransforms. Kept by this file, from
// the decorators themselves: class-transformer exports no reader of its own metadata.
const transformsOf = new WeakMap<object, Map<string, ValueTransform[]>>();

/**
 * class-transformer's `@Transform` (plain to class) of a value alone, also recorded for
 * {@link dtoInstance}'s direct build. A DTO class that uses it declares no other class-transformer
 * decorator and no methods or accessors: its instances are built directly, and its spec proves
 * that they are plainToInstance's (dto-instance.spec.ts does for the library's DTOs).
 */
export function DirectTransform(transform: ValueTransform): PropertyDecorator {
  const decorate = Transform(({ value }) => transform(value));
  return (target, property) => {
    decorate(target, property);
    const dto = target.constructor;
    let properties = transformsOf.get(dto);
    if (!properties) transformsOf.set(dto, (properties = new Map()));
    const list = properties.get(String(property)) ?? [];
    // Decorators run bottom-up; plainToInstance applies transforms top-down, the first declared first.
    properties.set(String(property), [transform, ...list]);
  };
}

/**
 * `plainToInstance(dto, { ...input })`, built directly for a DTO with {@link DirectTransform}s:
 * `new dto()`, then each own
 * key of the input with its {@link DirectTransform}s applied, which is what plainToInstance does
 * for a DTO whose only class-transformer decorators are DirectTransforms and an input of scalar
 * values, minus its per-call metadata walk (measured in apps/bench: 9 to 34 % of notify
 * throughput in memory, see docs/benchmarks.md). Any object or function value goes through
 * plainToInstance itself, as does a class without DirectTransforms. dto-instance.spec.ts proves
 * the equivalence for the library's DTOs with generated inputs.
 */
export function dtoInstance<T extends object>(dto: ClassConstructor<T>, input: object): T {
  const plain = input as Record<string, unknown>;
  const keys = Object.keys(plain);
  const transforms = transformsOf.get(dto);
  if (!transforms || keys.some((key) => isReference(plain[key]))) return plainToInstance(dto, { ...plain });
  const instance = new dto() as Record<string, unknown>;
  for (const key of keys) {
    let value = plain[key];
    for (const transform of transforms.get(key) ?? []) value = transform(value);
    instance[key] = value;
  }
  return instance as T;
}

// What plainToInstance copies or converts rather than assigning as is.
function isReference(value: unknown): boolean {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}
