import { ProcessNotificationsError } from './process-notifications.error.js';

/** The loop runs a foreign engine, which cannot take process notifications; nothing was journaled. */
export class UnsupportedEngineError extends ProcessNotificationsError {
  readonly code = 'unsupported_engine';
  override readonly disposition = 'stopped' as const;

  constructor(
    readonly loopId: string,
    readonly engine: string,
  ) {
    super(`loop ${loopId} runs the ${engine} engine, which does not take process notifications`);
  }
}
