/*
 * A typed client of the process notifications REST API (v1): plain fetch, no dependencies.
 * Users who write their own supervisor in Node start here; the supervisor CLI uses it too.
 */
export type * from './api.types.js';
export * from './vocabulary.js';
export type * from './admin.types.js';
export { NetworkError } from './network.error.js';
export { ProblemError } from './problem.error.js';
export { TimeoutError } from './timeout.error.js';
export type { CompletionUpdate } from './completion-tracker.js';
export { RetryPolicy, type RetryPolicyOptions, type Sleep } from './retry-policy.js';
export {
  ProcessNotificationsClient,
  type CallOptions,
  type CompletionsOptions,
  type CompletionTarget,
  type EventsOptions,
  type LoopEventsOptions,
  type ProcessNotificationsClientOptions,
  type RetryNotice,
  type SessionEvent,
  type WaitForCompletionOptions,
} from './process-notifications.client.js';
export { MAX_CONSUME_BATCH } from './consume-batcher.js';
export { fetchTransport, setDefaultTransport, type HttpAnswer, type HttpRequest, type HttpTransport } from './http-transport.js';
export { SseDecoder, type ServerSentEvent } from './sse-decoder.js';
