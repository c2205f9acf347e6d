import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';

/**
 * `pn watch [--after SEQUENCE]`: one JSON line per completion of the loop, `{"update": "new" |
 * "outcome", "notification": {...}}`, as the client's `completions()` yields them, until SIGINT
 * or SIGTERM (exit 0).
 */
export class WatchCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(after?: number): Promise<number> {
    const { sessionId, loopId } = this.connection;
    const client = this.connection.client();
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      // Fails fast on a wrong setting or a server that is not there; the stream then reconnects by itself.
      await client.getLoop(sessionId, loopId);
      for await (const { update, notification } of client.completions(sessionId, loopId, { signal: stop.signal, afterSequence: after })) {
        this.output.out(JSON.stringify({ update, notification }));
      }
      return 0;
    } catch (error) {
      throw this.connection.failure(error);
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
}
