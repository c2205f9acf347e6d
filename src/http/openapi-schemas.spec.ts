import { randomUUID } from 'node:crypto';
import {
  LIFECYCLE_KINDS,
  PROCESS_STATES,
  ProcessCompletionNotificationDto,
  ProcessLifecycleRecordDto,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
  ValidationError,
  validateInput,
  type InputSchema,
} from 'nestjs-process-notifications';
import type { SchemaObject } from '@nestjs/swagger';
import { PROCESS_COMPLETION_NOTIFICATION_SCHEMA, PROCESS_LIFECYCLE_RECORD_SCHEMA } from './openapi-schemas.js';

const NOW = '2026-01-01T00:00:00Z';
const notification = {
  command_id: randomUUID(),
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  state: 'exited',
  reason: 'exited',
};
const started = {
  event_id: randomUUID(),
  kind: 'started',
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  origin_execution_id: randomUUID(),
  state: 'running',
  process_created_at: NOW,
  process_started_at: NOW,
};

const enumOf = (schema: SchemaObject, property: string) => (schema.properties![property] as SchemaObject).enum;

function rejectsWithout(dto: new () => object, valid: object, field: string): boolean {
  const input: Record<string, unknown> = { ...valid };
  delete input[field];
  try {
    validateInput(dto, (dto as unknown as { schema: InputSchema }).schema, input);
    return false;
  } catch (error) {
    return error instanceof ValidationError;
  }
}

// The OpenAPI document describes the library's request bodies; these schemas are a copy of the
// DTOs' closed schemas and must not drift from them.
describe('the OpenAPI request schemas', () => {
  it.each([
    ['completion notification', PROCESS_COMPLETION_NOTIFICATION_SCHEMA, ProcessCompletionNotificationDto.schema.properties],
    ['lifecycle record', PROCESS_LIFECYCLE_RECORD_SCHEMA, ProcessLifecycleRecordDto.schema.properties],
  ])('of the %s name exactly the properties the library accepts, in its order, and no others', (_name, schema, properties) => {
    expect(Object.keys(schema.properties!)).toEqual(properties);
    expect(schema.additionalProperties).toBe(false);
  });

  it('require exactly what the library requires', () => {
    const notificationRequired = ProcessCompletionNotificationDto.schema.properties.filter((field) =>
      rejectsWithout(ProcessCompletionNotificationDto, notification, field),
    );
    expect(PROCESS_COMPLETION_NOTIFICATION_SCHEMA.required).toEqual(notificationRequired);
    // A started record also needs process_started_at, a rule of its kind, not of the schema.
    const lifecycleRequired = ProcessLifecycleRecordDto.schema.properties.filter(
      (field) => field !== 'process_started_at' && rejectsWithout(ProcessLifecycleRecordDto, started, field),
    );
    expect(PROCESS_LIFECYCLE_RECORD_SCHEMA.required).toEqual(lifecycleRequired);
  });

  it('list the vocabulary of the library', () => {
    expect(enumOf(PROCESS_COMPLETION_NOTIFICATION_SCHEMA, 'state')).toEqual(Object.keys(TERMINAL_PAIRS));
    expect(enumOf(PROCESS_COMPLETION_NOTIFICATION_SCHEMA, 'reason')).toEqual(TERMINAL_REASONS);
    expect(enumOf(PROCESS_LIFECYCLE_RECORD_SCHEMA, 'kind')).toEqual(LIFECYCLE_KINDS);
    expect(enumOf(PROCESS_LIFECYCLE_RECORD_SCHEMA, 'state')).toEqual(PROCESS_STATES);
    expect(enumOf(PROCESS_LIFECYCLE_RECORD_SCHEMA, 'reason')).toEqual(TERMINAL_REASONS);
  });

  it('describe the signal by the pattern the library checks', () => {
    const pattern = new RegExp((PROCESS_LIFECYCLE_RECORD_SCHEMA.properties!.signal as SchemaObject).pattern!);
    const killed = {
      ...started,
      kind: 'completed',
      state: 'killed',
      reason: 'killed',
      process_finished_at: NOW,
    };
    for (const signal of ['SIGSEGV', 'SIGIO', 'SIGRTMIN1', 'SIGABCDEFGHIJ', 'SIGABCDEFGHIJK', 'sigsegv', 'SEGV', 'SIG+1']) {
      const accepted = !rejectsWithout(ProcessLifecycleRecordDto, { ...killed, signal }, 'absent');
      expect([signal, pattern.test(signal)]).toEqual([signal, accepted]);
    }
  });
});
