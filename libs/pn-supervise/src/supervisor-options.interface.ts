/** The supervisor's settings, from its options and environment (spec sections 10 and 14). */
export interface SupervisorOptions {
  readonly server: string;
  readonly token: string;
  readonly sessionId: string;
  readonly loopId: string;
  readonly handle: string;
  /** The completion's id, when the caller allocated it (`--command-id`). */
  readonly commandId?: string;
  readonly stateDir: string;
  /**
   * The environment the command starts with: the supervisor's own without any `PN_*` variable
   * (its token and settings), except those named with `--pass-env`.
   */
  readonly commandEnv: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly outputLimit?: number;
  /** Stop retrying a delivery this long after the command ended (`--deadline`): exit 75. */
  readonly deadlineMs?: number;
  /** After SIGTERM or SIGINT, how long to wait for the server once the command ended. */
  readonly shutdownWaitMs: number;
  /**
   * Before the command runs, ask the server whether it takes the token, session and loop
   * (not with `--no-check`).
   */
  readonly check: boolean;
  /** How long that check waits for the server to answer (`--start-wait`). */
  readonly startWaitMs: number;
  readonly quiet: boolean;
  /** Print the ids line before the command starts (not with `--no-ids`). */
  readonly ids: boolean;
  readonly command: string;
  readonly args: readonly string[];
}
