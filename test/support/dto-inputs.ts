import fc from 'fast-check';
import { ProcessCompletionNotificationDto } from '../../libs/process-notifications/src/commands/notify-process-completion/process-completion-notification.dto.js';
import { ProcessLifecycleRecordDto } from '../../libs/process-notifications/src/commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import type { InputSchema } from '../../libs/process-notifications/src/validation/validate-input.js';
import { LIFECYCLE_KINDS, PROCESS_STATES, TERMINAL_REASONS } from 'process-notifications-contract';
import { LIFECYCLE_VECTORS } from './lifecycle-vectors.js';
import { NOTIFICATION_VECTORS, type NotificationVector } from './notification-vectors.js';

/** A DTO of the library's hot path, with its closed schema and the contract's vectors for it. */
export interface HotDto<T extends object = object> {
  readonly name: string;
  readonly dto: (new () => T) & { readonly schema: InputSchema<T> };
  readonly vectors: readonly NotificationVector[];
}

/** The DTOs the fast paths (dto-instance.ts, validity-check.ts) serve. */
const hot = <T extends object>(entry: HotDto<T>): HotDto => entry as unknown as HotDto;
export const HOT_DTOS: readonly HotDto[] = [
  hot({ name: 'ProcessCompletionNotificationDto', dto: ProcessCompletionNotificationDto, vectors: NOTIFICATION_VECTORS }),
  hot({ name: 'ProcessLifecycleRecordDto', dto: ProcessLifecycleRecordDto, vectors: LIFECYCLE_VECTORS }),
];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Any value a field may carry: the values the contract's vectors give it (valid ones among them),
 * UUIDs in both cases and the nil UUID, the vocabularies, timestamps, unicode, long and empty
 * strings, other JSON types, undefined as a present key, and nested values.
 */
function fieldValue(seen: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...seen) },
    fc.uuid().chain((id) => fc.constantFrom(id, id.toUpperCase())),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', '', ' ', 'x'.repeat(129), 'x'.repeat(128)),
    fc.constantFrom<unknown>(...LIFECYCLE_KINDS, ...PROCESS_STATES, ...TERMINAL_REASONS),
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 100, maxLength: 400 }),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,130}$/),
    fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
    fc.oneof(
      fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
    ),
  );
}

/**
 * Inputs for `hot`'s DTO: a contract vector with some fields replaced, some removed, and (with
 * `extraKeys`) keys outside the schema added, `__proto__` and `constructor` among them.
 */
export function dtoInputs(hot: HotDto, { extraKeys }: { extraKeys: boolean }): fc.Arbitrary<Record<string, unknown>> {
  const bases = hot.vectors.map((vector) => vector.input).filter(isObject);
  const valid = hot.vectors.filter((vector) => vector.field === null).map((vector) => vector.input);
  const properties = hot.dto.schema.properties;
  const seen = new Map(properties.map((property) => [property, [...new Set(bases.map((base) => base[property]))]]));
  const replacements = fc.dictionary(
    fc.constantFrom(...properties),
    fc.constantFrom(...properties).chain((property) => fieldValue(seen.get(property)!.length ? seen.get(property)! : [undefined])),
    { maxKeys: 4 },
  );
  const removed = fc.subarray([...properties], { maxLength: 3 });
  const extra = extraKeys
    ? fc.dictionary(
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'env', 'command')),
        fc.jsonValue({ maxDepth: 1 }),
        {
          maxKeys: 2,
        },
      )
    : fc.constant({});
  return fc
    .tuple(
      // Valid inputs as often as the others: most vectors are invalid.
      fc.oneof(fc.constantFrom(...valid), fc.constantFrom(...bases)),
      fc.oneof({ weight: 2, arbitrary: fc.constant({}) }, replacements),
      fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, removed),
      fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, extra),
    )
    .map(([base, replaced, gone, added]) => {
      const input: Record<string, unknown> = { ...base, ...replaced };
      for (const property of gone) delete input[property];
      // defineProperty: an own `__proto__` key, as JSON.parse makes it, not a prototype change.
      for (const [key, value] of Object.entries(added))
        Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
      return input;
    });
}
