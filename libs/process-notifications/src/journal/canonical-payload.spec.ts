import { ProcessCompletionNotificationDto } from '../commands/notify-process-completion/process-completion-notification.dto.js';
import { ProcessLifecycleRecordDto } from '../commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import { validateInput } from '../validation/validate-input.js';
import { canonicalPayload } from './canonical-payload.js';

const SESSION = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';
const LOOP = '0192f3a4-5b6c-7d8e-9f01-23456789abce';
const COMMAND = '0192f3a4-5b6c-7d8e-9f01-23456789abcf';

describe('canonicalPayload', () => {
  it('journals a notification in schema order whatever order its fields came in, UUIDs lower-cased', () => {
    const sent = {
      reason: 'exited',
      state: 'exited',
      process_handle: 'proc-1',
      loop_id: LOOP,
      session_id: SESSION.toUpperCase(),
      command_id: COMMAND,
    };
    const dto = validateInput(ProcessCompletionNotificationDto, ProcessCompletionNotificationDto.schema, sent);
    const payload = canonicalPayload(dto, ProcessCompletionNotificationDto.schema.properties);
    expect(JSON.stringify(payload)).toBe(
      `{"command_id":"${COMMAND}","session_id":"${SESSION}","loop_id":"${LOOP}","process_handle":"proc-1","state":"exited","reason":"exited"}`,
    );
    // A plain object: nothing of the DTO instance (its class) goes into the journal.
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
  });

  it('leaves out the optional fields a lifecycle record did not send, the others in schema order', () => {
    // Sent in reverse order, so the payload's order can only come from the schema.
    const sent = {
      process_started_at: '2026-01-01T00:00:01Z',
      process_created_at: '2026-01-01T00:00:00Z',
      state: 'running',
      origin_execution_id: '0192f3a4-5b6c-7d8e-9f01-23456789abd0',
      process_handle: 'proc-1',
      loop_id: LOOP,
      session_id: SESSION,
      kind: 'started',
      event_id: COMMAND,
    };
    const { properties } = ProcessLifecycleRecordDto.schema;
    const dto = validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, sent);
    const keys = Object.keys(canonicalPayload(dto, properties));
    expect(keys).toEqual(properties.filter((property) => Object.hasOwn(sent, property)));
    expect(keys).toHaveLength(Object.keys(sent).length);
    expect(keys).not.toContain('diagnostic');
  });
});
