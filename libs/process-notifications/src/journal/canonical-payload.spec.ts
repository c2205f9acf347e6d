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

  it('leaves out the optional fields a lifecycle record did not send', () => {
    const sent = {
      event_id: COMMAND,
      kind: 'started',
      session_id: SESSION,
      loop_id: LOOP,
      process_handle: 'proc-1',
      origin_execution_id: '0192f3a4-5b6c-7d8e-9f01-23456789abd0',
      state: 'running',
      process_created_at: '2026-01-01T00:00:00Z',
      process_started_at: '2026-01-01T00:00:01Z',
    };
    const dto = validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, sent);
    expect(Object.keys(canonicalPayload(dto, ProcessLifecycleRecordDto.schema.properties))).toEqual([
      'event_id',
      'kind',
      'session_id',
      'loop_id',
      'process_handle',
      'origin_execution_id',
      'state',
      'process_created_at',
      'process_started_at',
    ]);
  });
});
