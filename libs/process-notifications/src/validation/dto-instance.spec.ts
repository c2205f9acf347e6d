import { Expose, plainToInstance, Transform, Type, type ClassConstructor } from 'class-transformer';
import { ProcessCompletionNotificationDto } from '../commands/notify-process-completion/process-completion-notification.dto.js';
import { ProcessLifecycleRecordDto } from '../commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import { LIFECYCLE_VECTORS } from '../../../../test/support/lifecycle-vectors.js';
import { fieldVariants, NOTIFICATION_VECTORS, type NotificationVector } from '../../../../test/support/notification-vectors.js';
import { builderOf, dtoInstance } from './dto-instance.js';

// Each vector, and each with one field changed: another type, null, missing, upper case, nested.
const variants = (input: Record<string, unknown>) =>
  fieldVariants(input, (value) => [42, true, null, undefined, String(value).toUpperCase(), { nested: 'X' }, ['A']]);

// The same instance plainToInstance gives: class, own keys in order, values.
function expectSameAsPlainToInstance<T extends object>(dto: ClassConstructor<T>, properties: readonly string[], input: object): void {
  const built = dtoInstance(dto, properties, input);
  const reference = plainToInstance(dto, { ...input });
  expect(built).toBeInstanceOf(dto);
  expect(Object.entries(built)).toEqual(Object.entries(reference));
  // plainToInstance copies object values; so must every path.
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'object' && value !== null) expect((built as Record<string, unknown>)[key]).not.toBe(value);
  }
}

describe('dtoInstance', () => {
  const cases: Array<[string, ClassConstructor<object> & { schema: { properties: readonly string[] } }, readonly NotificationVector[]]> = [
    ['ProcessCompletionNotificationDto', ProcessCompletionNotificationDto, NOTIFICATION_VECTORS],
    ['ProcessLifecycleRecordDto', ProcessLifecycleRecordDto, LIFECYCLE_VECTORS],
  ];

  it.each(cases)('builds %s directly, as plainToInstance would, for every contract vector and its variants', (_name, dto, list) => {
    expect(builderOf(dto, dto.schema.properties)).not.toBeNull();
    let checked = 0;
    for (const { input } of list) {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) continue;
      for (const variant of variants(input)) {
        expectSameAsPlainToInstance(dto, dto.schema.properties, variant);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('lower-cases UUIDs through the DTO’s own @Transform', () => {
    const id = 'ABCDEF01-2345-4678-9ABC-DEF012345678';
    const built = dtoInstance(ProcessCompletionNotificationDto, ProcessCompletionNotificationDto.schema.properties, { command_id: id });
    expect(built.command_id).toBe(id.toLowerCase());
  });

  it('leaves classes with other class-transformer decorators to plainToInstance, with the same result', () => {
    class Child {
      n!: number;
    }
    class Typed {
      @Type(() => Child)
      child!: Child;
    }
    class Exposed {
      @Expose({ name: 'other' })
      name!: string;
    }
    class Grouped {
      @Transform(({ value }) => `${String(value)}!`, { groups: ['loud'] })
      word!: string;
    }
    class Method {
      word(): string {
        return 'method';
      }
    }
    const shapes: Array<[ClassConstructor<object>, string[], object]> = [
      [Typed, ['child'], { child: { n: 1 } }],
      [Exposed, ['name'], { other: 'x', name: 'y' }],
      [Grouped, ['word'], { word: 'hi' }],
      [Method, ['word'], { word: 'plain' }],
    ];
    for (const [dto, properties, input] of shapes) {
      expect(builderOf(dto, properties)).toBeNull();
      expectSameAsPlainToInstance(dto, properties, input);
    }
  });
});
