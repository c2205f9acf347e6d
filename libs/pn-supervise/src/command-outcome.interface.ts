/** Why the supervisor stopped the command, when it did. */
export type StopCause = 'timeout' | 'output_limit' | 'runner_shutdown' | 'rejected';

/** How a command ended, as the operating system reported it. */
export type CommandOutcome =
  /** It could not be started at all; `errno` is the code, e.g. `ENOENT`. */
  | { readonly kind: 'not_started'; readonly errno: string }
  | {
      readonly kind: 'ended';
      /** The exit status, or null when a signal ended it. */
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** Set when the supervisor stopped it. */
      readonly stopCause?: StopCause;
      /** The signal the supervisor itself received (`runner_shutdown` only). */
      readonly shutdownSignal?: 'SIGTERM' | 'SIGINT';
      /** True when it had to be SIGKILLed after the grace period. */
      readonly escalated: boolean;
    };
