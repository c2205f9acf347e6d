import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';
import { ShellExportFormatter } from './shell-export.formatter.js';

/**
 * `pn session open [--json]`: creates a session with the admin token and prints `export` lines
 * for `PN_SERVER_URL`, `PN_SESSION_ID` and `PN_TOKEN` (for `eval "$(pn session open)"`), or the
 * API's answer with `--json`.
 */
export class SessionOpenCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
  ) {}

  async run(json: boolean): Promise<number> {
    const server = this.connection.server;
    const client = this.connection.client(this.connection.required('adminToken'));
    const created = await client.createSession().catch((error: unknown) => {
      throw this.connection.failure(error);
    });
    if (json) {
      this.output.out(JSON.stringify(created));
      return 0;
    }
    this.output.out(ShellExportFormatter.line('PN_SERVER_URL', server));
    this.output.out(ShellExportFormatter.line('PN_SESSION_ID', created.session_id));
    this.output.out(ShellExportFormatter.line('PN_TOKEN', created.token));
    return 0;
  }
}
