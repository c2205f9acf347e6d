import type { LoopEngine } from 'process-notifications-client';
import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';
import { ShellExportFormatter } from './shell-export.formatter.js';

/** `pn loop open [--engine native|foreign] [--json]`: opens a loop of the session and prints `export PN_LOOP_ID=…` (or the API's answer). */
export class LoopOpenCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(engine: LoopEngine, json: boolean): Promise<number> {
    const sessionId = this.connection.sessionId;
    const loop = await this.connection
      .client()
      .openLoop(sessionId, { engine })
      .catch((error: unknown) => {
        throw this.connection.failure(error);
      });
    this.output.out(json ? JSON.stringify(loop) : ShellExportFormatter.line('PN_LOOP_ID', loop.loop_id));
    return 0;
  }
}
