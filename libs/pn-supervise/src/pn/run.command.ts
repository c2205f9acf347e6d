import type { PnConnection } from './pn-connection.js';
import type { PnOutput } from './pn-output.interface.js';
import { SupervisorLauncher } from './supervisor.launcher.js';

/**
 * `pn run [pn-supervise options] -- COMMAND [ARGS...]`: starts the command under pn-supervise in
 * the background and prints `command_id=<uuid>` and `log=<path>` once the supervisor's check
 * before the run passed (spec section 16). The supervisor checks the settings itself; nothing
 * of the command, its environment or its output is sent by pn.
 */
export class RunCommand {
  constructor(
    private readonly connection: PnConnection,
    private readonly output: PnOutput,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  async run(request: {
    readonly supervisorArgs: readonly string[];
    readonly stateDir?: string;
    readonly argv: readonly string[];
  }): Promise<number> {
    const launched = await SupervisorLauncher.launch({
      ...request,
      cwd: process.cwd(),
      env: { ...this.env, ...this.connection.supervisorEnvironment() },
    });
    this.output.out(`command_id=${launched.commandId}`);
    this.output.out(`log=${launched.logPath}`);
    return 0;
  }
}
