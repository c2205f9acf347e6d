import type { Disposition, ErrorCode } from '../vocabulary/process-vocabulary.js';

/**
 * Base class of every error the library throws. `code` is stable and is what the HTTP layer
 * (or any embedder) maps on; `disposition` is set where the contract gives the failure one.
 */
export abstract class ProcessNotificationsError extends Error {
  abstract readonly code: ErrorCode;
  readonly disposition?: Disposition;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
