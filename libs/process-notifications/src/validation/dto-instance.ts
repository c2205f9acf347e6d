import { createRequire } from 'node:module';
import { plainToInstance, TransformationType, type ClassConstructor, type TransformFnParams } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

type Transform = (params: TransformFnParams) => unknown;

interface Builder {
  // Per property, the @Transform functions that apply from plain to class, in declaration order.
  readonly transforms: ReadonlyMap<string, readonly Transform[]>;
}

// class-transformer keeps its decorators' metadata in this singleton and exports it from no
// public entry point; without it (another layout of the package) every call takes plainToInstance.
const storage = ((): MetadataStorage | undefined => {
  try {
    return (createRequire(import.meta.url)('class-transformer/cjs/storage.js') as { defaultMetadataStorage: MetadataStorage })
      .defaultMetadataStorage;
  } catch {
    return undefined;
  }
})();

// What plainToInstance passes a transform function as `options` when given none.
const DEFAULT_OPTIONS = Object.freeze({
  enableCircularCheck: false,
  enableImplicitConversion: false,
  excludeExtraneousValues: false,
  excludePrefixes: undefined,
  exposeDefaultValues: false,
  exposeUnsetFields: true,
  groups: undefined,
  ignoreDecorators: false,
  strategy: undefined,
  targetMaps: undefined,
  version: undefined,
});

const builders = new WeakMap<ClassConstructor<object>, Builder | null>();

/**
 * `plainToInstance(dto, input)` for the hot path: for a DTO of `properties` whose only
 * class-transformer decorators are plain `@Transform`s (no `@Type`, `@Expose`, `@Exclude`,
 * groups or versions) and an input of scalar values, builds the instance directly: `new dto()`,
 * then each own key of the input with its transforms applied. That is what plainToInstance
 * does for such input, minus its per-call metadata walk (measured: 6 KB of garbage and about 3% of
 * a notify request's CPU). Anything else (object or array values, other decorators) goes through
 * plainToInstance itself. `properties` are the DTO's closed-schema properties, the same for every
 * call with that class (what is read from them is kept per class).
 */
export function dtoInstance<T extends object>(dto: ClassConstructor<T>, properties: readonly string[], input: object): T {
  const builder = builderOf(dto, properties);
  const plain = input as Record<string, unknown>;
  const keys = Object.keys(plain);
  if (!builder || keys.some((key) => typeof plain[key] === 'object' && plain[key] !== null)) {
    return plainToInstance(dto, { ...plain });
  }
  const instance = new dto() as Record<string, unknown>;
  for (const key of keys) {
    let value = plain[key];
    for (const transform of builder.transforms.get(key) ?? []) {
      value = transform({ value, key, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: DEFAULT_OPTIONS });
    }
    instance[key] = value;
  }
  return instance as T;
}

/** The direct builder of a DTO class, or null when its instances come from plainToInstance. */
export function builderOf(dto: ClassConstructor<object>, properties: readonly string[]): Builder | null {
  let builder = builders.get(dto);
  if (builder === undefined) {
    builder = compile(dto, properties);
    builders.set(dto, builder);
  }
  return builder;
}

function compile(dto: ClassConstructor<object>, properties: readonly string[]): Builder | null {
  if (!storage || storage.getStrategy(dto) !== 'none') return null;
  if (storage.getExposedMetadatas(dto).length > 0 || storage.getExcludedMetadatas(dto).length > 0) return null;
  const transforms = new Map<string, Transform[]>();
  const fresh = new dto() as Record<string, unknown>;
  for (const property of properties) {
    if (storage.findTypeMetadata(dto, property)) return null;
    // plainToInstance skips a property the class defines as a method, a getter or a function field.
    if (Object.getOwnPropertyDescriptor(dto.prototype, property) || typeof fresh[property] === 'function') return null;
    const metadatas = storage.findTransformMetadatas(dto, property, TransformationType.PLAIN_TO_CLASS);
    const { options } =
      metadatas.find(({ options }) => options.groups?.length || options.since !== undefined || options.until !== undefined) ?? {};
    if (options) return null;
    transforms.set(
      property,
      metadatas.map((metadata) => metadata.transformFn),
    );
  }
  return { transforms };
}
