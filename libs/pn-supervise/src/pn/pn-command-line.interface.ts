import type { LoopEngine } from 'process-notifications-client';

/** What the options and environment say about the service, session and loop (spec section 16). */
export interface PnConnectionOptions {
  readonly server?: string;
  readonly token?: string;
  readonly sessionId?: string;
  readonly loopId?: string;
  readonly adminToken?: string;
}

/** What `pn`'s command line asks for, its connection options aside. */
export type PnCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'session-open'; readonly json: boolean }
  | { readonly kind: 'loop-open'; readonly json: boolean; readonly engine: LoopEngine }
  /** `supervisorArgs`: the pn-supervise options given before `--`, passed on as they are. */
  | { readonly kind: 'run'; readonly supervisorArgs: readonly string[]; readonly stateDir?: string; readonly argv: readonly string[] }
  | {
      readonly kind: 'wait';
      readonly commandId: string;
      readonly timeoutMs?: number;
      readonly json: boolean;
      /** Wait for the outcome too (not with `--no-outcome`). */
      readonly outcome: boolean;
    }
  | { readonly kind: 'pending'; readonly json: boolean }
  | { readonly kind: 'consume'; readonly commandIds: readonly string[] }
  | { readonly kind: 'watch'; readonly after?: number }
  | { readonly kind: 'mcp' };

/** `pn`'s command line, read. */
export interface PnCommandLine {
  readonly command: PnCommand;
  readonly connection: PnConnectionOptions;
}
