import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';
import { PN_ERROR_STATUSES } from './pn.error.js';

/**
 * `pn consume COMMAND_ID...`: consumes each notification (one request); prints `consumed` or
 * `already consumed` per id, and for an id the loop never accepted a line on stderr and exit 1.
 */
export class ConsumeCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(commandIds: readonly string[]): Promise<number> {
    const { sessionId, loopId } = this.connection;
    const { results } = await this.connection
      .client()
      .consumeMany(sessionId, loopId, commandIds)
      .catch((error: unknown) => {
        throw this.connection.failure(error);
      });
    let status = 0;
    for (const result of results) {
      if ('code' in result) {
        this.output.err(`pn: ${result.command_id}: ${result.code}: loop ${loopId} never accepted it`);
        status = PN_ERROR_STATUSES.refused;
      } else {
        this.output.out(`${result.command_id} ${result.consumed ? 'consumed' : 'already consumed'}`);
      }
    }
    return status;
  }
}
