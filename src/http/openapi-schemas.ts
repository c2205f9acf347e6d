import type { SchemaObject } from '@nestjs/swagger';
import {
  LIFECYCLE_DIAGNOSTIC_MAX_BYTES,
  LIFECYCLE_KINDS,
  PROCESS_HANDLE_PATTERN,
  PROCESS_STATES,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
} from 'nestjs-process-notifications';
import { PROCESS_SIGNAL_PATTERN, SIGNAL_STATES } from 'process-notifications-contract';

// The library validates; these only describe its request bodies for the OpenAPI document,
// from the same vocabulary, so the HTTP layer owns everything OpenAPI.
const uuid = (description?: string): SchemaObject => ({ type: 'string', format: 'uuid', ...(description ? { description } : {}) });
const timestamp = (description: string): SchemaObject => ({ type: 'string', format: 'date-time', description });
const processHandle: SchemaObject = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: PROCESS_HANDLE_PATTERN,
  description: 'Opaque handle of the process.',
};

/** The completion notification (spec section 2): a closed schema. */
export const PROCESS_COMPLETION_NOTIFICATION_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason'],
  properties: {
    command_id: uuid('Idempotency key, allocated by the supervisor before publishing.'),
    session_id: uuid(),
    loop_id: uuid(),
    process_handle: processHandle,
    state: { type: 'string', enum: Object.keys(TERMINAL_PAIRS), description: 'Terminal state; with reason one of the terminal pairs.' },
    reason: { type: 'string', enum: [...TERMINAL_REASONS] },
  },
};

/** The process lifecycle record (spec section 6): a closed schema. */
export const PROCESS_LIFECYCLE_RECORD_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['event_id', 'kind', 'session_id', 'loop_id', 'process_handle', 'origin_execution_id', 'state', 'process_created_at'],
  properties: {
    event_id: uuid('Idempotency key of the record, allocated by the supervisor.'),
    kind: { type: 'string', enum: [...LIFECYCLE_KINDS] },
    session_id: uuid(),
    loop_id: uuid(),
    process_handle: processHandle,
    origin_execution_id: uuid('The execution that started the process.'),
    state: { type: 'string', enum: [...PROCESS_STATES] },
    process_created_at: timestamp('RFC 3339 date-time; kept exactly as sent.'),
    process_started_at: timestamp('Not before process_created_at.'),
    process_finished_at: timestamp('Not before process_created_at, nor before process_started_at.'),
    diagnostic: {
      type: 'string',
      description: `At most ${LIFECYCLE_DIAGNOSTIC_MAX_BYTES} UTF-8 bytes; only on completed with state failed, and on lost.`,
    },
    has_exit_code: { type: 'boolean' },
    exit_code: {
      type: 'integer',
      format: 'int32',
      minimum: -(2 ** 31),
      maximum: 2 ** 31 - 1,
      description: 'Absent or 0 unless has_exit_code is true.',
    },
    reason: { type: 'string', enum: [...TERMINAL_REASONS], description: 'With kind and state, one of the lifecycle tuples.' },
    command_id: uuid('The command_id of the completion notification of the same run; only on completed and lost, never equal to event_id.'),
    signal: {
      type: 'string',
      pattern: PROCESS_SIGNAL_PATTERN,
      example: 'SIGSEGV',
      description: `The POSIX signal that ended the command; only on completed with state ${SIGNAL_STATES.join(', ')}.`,
    },
  },
};
