import { TimeoutError, type PendingNotification } from 'process-notifications-client';
import { NotificationLineFormatter } from './notification-line.formatter.js';
import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';
import { PnError } from './pn.error.js';
import { ShellExitStatusMapper } from './shell-exit-status.mapper.js';

/** What `pn wait` was asked. */
export interface WaitRequest {
  readonly commandId: string;
  readonly timeoutMs?: number;
  readonly json: boolean;
  /** Wait for the outcome too (not with `--no-outcome`). */
  readonly outcome: boolean;
}

/**
 * `pn wait COMMAND_ID [--timeout SECONDS] [--json] [--no-outcome]` (spec section 16): waits for
 * that completion on the loop (found too if it came before), prints it in one line (or as JSON)
 * and exits as a shell would have for the command; 75 when nothing, or no outcome, came in time.
 */
export class WaitCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(request: WaitRequest): Promise<number> {
    const { sessionId, loopId } = this.connection;
    const client = this.connection.client();
    const seconds = request.timeoutMs === undefined ? '' : ` within ${request.timeoutMs / 1000} s`;
    let notification: PendingNotification;
    try {
      // Fails fast, where the stream below would retry: a wrong setting or a server that is not there.
      await client.getLoop(sessionId, loopId);
      ({ notification } = await client.waitForCompletion(
        sessionId,
        loopId,
        { commandId: request.commandId },
        { timeoutMs: request.timeoutMs, waitForOutcome: request.outcome },
      ));
    } catch (error) {
      if (error instanceof TimeoutError)
        throw new PnError('wait_timeout', `no completion of ${request.commandId} in loop ${loopId}${seconds}`);
      throw this.connection.failure(error);
    }
    if (request.outcome && notification.outcome === null) {
      throw new PnError(
        'wait_timeout',
        `the completion of ${request.commandId} came, but not its outcome${seconds} (--no-outcome returns without it)`,
      );
    }
    this.output.out(request.json ? JSON.stringify(notification) : NotificationLineFormatter.waited(notification));
    return request.outcome ? ShellExitStatusMapper.map(notification) : 0;
  }
}
