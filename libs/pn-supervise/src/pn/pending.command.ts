import { NotificationLineFormatter } from './notification-line.formatter.js';
import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';

/** `pn pending [--json]`: the loop's pending notifications, one line each, oldest first (or the API's answer). */
export class PendingCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(json: boolean): Promise<number> {
    const { sessionId, loopId } = this.connection;
    const pending = await this.connection
      .client()
      .pendingNotifications(sessionId, loopId)
      .catch((error: unknown) => {
        throw this.connection.failure(error);
      });
    if (json) this.output.out(JSON.stringify(pending));
    // The API answers in acceptance order: oldest first.
    else pending.notifications.forEach((notification) => this.output.out(NotificationLineFormatter.pending(notification)));
    return 0;
  }
}
