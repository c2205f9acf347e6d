/** The supervisor's settings, from its options and environment (spec section 10). */
export interface SupervisorOptions {
  readonly server: string;
  readonly token: string;
  readonly sessionId: string;
  readonly loopId: string;
  readonly handle: string;
  readonly stateDir: string;
  readonly timeoutMs?: number;
  readonly outputLimit?: number;
  readonly quiet: boolean;
  readonly command: string;
  readonly args: readonly string[];
}
