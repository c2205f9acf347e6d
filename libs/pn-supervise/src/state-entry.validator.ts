import type { StateEntry } from './state-entry.interface.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RECORD_KEYS: readonly string[] = ['started', 'stop_requested', 'completed', 'lost', 'notification'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isUuid = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';
const isInteger = (value: unknown): boolean => Number.isSafeInteger(value);

/**
 * Tells whether what a state file holds is a state entry this supervisor can deliver (the
 * shape of {@link StateEntry}), so that a torn or foreign file is skipped instead of sent or
 * crashing the run. Values the server checks itself (a handle, a timestamp) are only typed here.
 */
export class StateEntryValidator {
  /** The entry in `value` for the file of `commandId`, or why it is not one. */
  static validate(value: unknown, commandId: string): { entry: StateEntry } | { problem: string } {
    return StateEntryValidator.isEntry(value, commandId) ? { entry: value } : { problem: 'not a state entry' };
  }

  private static isEntry(value: unknown, commandId: string): value is StateEntry {
    if (!isObject(value) || value.version !== 1 || value.command_id !== commandId) return false;
    const { event_ids: eventIds, command_process: command, stop_request: stop, completion, published, rejected } = value;
    return (
      [value.origin_execution_id, value.session_id, value.loop_id].every(isUuid) &&
      isString(value.process_handle) &&
      isObject(eventIds) &&
      ['started', 'stop_requested', 'completed', 'lost'].every((key) => isUuid(eventIds[key])) &&
      isString(value.created_at) &&
      optional(value.started_at, isString) &&
      optional(command, (c) => isObject(c) && isInteger(c.pid) && (c.pid as number) > 0 && isString(c.token)) &&
      optional(stop, (s) => isObject(s) && (s.reason === 'interrupted' || s.reason === 'terminated')) &&
      optional(
        completion,
        (c) =>
          isObject(c) &&
          [c.state, c.reason, c.finished_at].every(isString) &&
          isInteger(c.exit_status) &&
          optional(c.has_exit_code, (has) => has === true) &&
          optional(c.exit_code, isInteger) &&
          optional(c.diagnostic, isString) &&
          optional(c.signal, isString),
      ) &&
      Array.isArray(published) &&
      published.every((key) => RECORD_KEYS.includes(key as string)) &&
      optional(rejected, (r) => isObject(r) && isInteger(r.status) && isString(r.code) && isString(r.detail)) &&
      optional(value.rejection_announced, (announced) => announced === true)
    );
  }
}
