import { CommandWatchdog } from './command.watchdog.js';

/*
 * The command's watchdog (see CommandWatchdog): node watchdog-main.js SUPERVISOR_PID
 * SUPERVISOR_START COMMAND_PID COMMAND_START. Started by the supervisor, never by hand.
 */

// Only the disappearance of the supervisor ends the command; the signals a terminal or a
// service manager sends to the supervisor's group are the supervisor's to handle.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);

const [supervisorPid, supervisorToken, commandPid, commandToken] = process.argv.slice(2);
await CommandWatchdog.watch(
  { pid: Number(supervisorPid), token: supervisorToken ?? '0' },
  { pid: Number(commandPid), token: commandToken ?? '0' },
);
process.exit(0);
