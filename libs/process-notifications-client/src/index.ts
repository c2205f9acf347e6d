/*
 * A typed client of the process notifications REST API (v1): plain fetch, and no dependency but
 * the API's contract (`process-notifications-contract`, itself dependency-free), whose closed
 * sets, bounds, headers and wire types it exports as its own. Users who write their own
 * supervisor in Node start here; the supervisor CLI uses it too.
 */
export * from 'process-notifications-contract';
export { BAD_ANSWER_CODES, BadAnswerError, type BadAnswerCode } from './bad-answer.error.js';
export { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES } from './answer-limits.js';
export { NetworkError } from './network.error.js';
export { ProblemError } from './problem.error.js';
export { TimeoutError } from './timeout.error.js';
export type { CompletionUpdate } from './completion-tracker.js';
export { LoopWorker, type LoopWorkerContext, type LoopWorkerHandler, type LoopWorkerOptions } from './loop-worker.js';
export { LOOP_WORKER_FAILURES, LoopWorkerError, type LoopWorkerFailure } from './loop-worker.error.js';
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
export { fetchTransport, setDefaultTransport, type HttpAnswer, type HttpRequest, type HttpTransport } from './http-transport.js';
export { SseDecoder, type ServerSentEvent } from './sse-decoder.js';
