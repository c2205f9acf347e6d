import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CommandEnvironmentFilter } from './command-environment.filter.js';
import { ProcessIdentity, type ProcessIdentityValue } from './process-identity.js';

/** How often the watchdog looks at the supervisor. */
const POLL_MS = 200;
/** After SIGTERM, how long the orphaned command gets before SIGKILL. */
const ORPHAN_GRACE_MS = 2_000;

/**
 * The command never outlives its supervisor, even a SIGKILLed one (spec section 10): beside
 * each command runs a small watchdog process of its own (a new session, so a signal to the
 * supervisor's process group does not reach it; SIGINT, SIGTERM and SIGHUP ignored) that ends
 * the command (SIGTERM, then SIGKILL after {@link ORPHAN_GRACE_MS}) once the supervisor is gone
 * or a zombie, and ends itself once the command is gone. Both are named by pid and start time,
 * so a reused pid is never signalled.
 */
export class CommandWatchdog {
  /** Starts the watchdog of `command` for this process; it needs nothing from the caller after that. */
  static start(command: ProcessIdentityValue): void {
    const supervisor = ProcessIdentity.current();
    const main = fileURLToPath(new URL('./watchdog-main.js', import.meta.url));
    const child = spawn(process.execPath, [main, String(supervisor.pid), supervisor.token, String(command.pid), command.token], {
      detached: true,
      stdio: 'ignore',
      // It needs none of the supervisor's PN_* variables (its token among them).
      env: CommandEnvironmentFilter.filter(process.env),
    });
    child.on('error', () => undefined);
    child.unref();
  }

  /** The watchdog's own loop: resolves once the command is gone. */
  static async watch(supervisor: ProcessIdentityValue, command: ProcessIdentityValue): Promise<void> {
    const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
    while (ProcessIdentity.isRunning(command)) {
      if (!ProcessIdentity.isRunning(supervisor)) {
        CommandWatchdog.signal(command, 'SIGTERM');
        const deadline = Date.now() + ORPHAN_GRACE_MS;
        while (ProcessIdentity.isRunning(command) && Date.now() < deadline) await sleep(50);
        CommandWatchdog.signal(command, 'SIGKILL');
        return;
      }
      await sleep(POLL_MS);
    }
  }

  /** Signals `target` if it is still the process it was. */
  static signal(target: ProcessIdentityValue, signal: NodeJS.Signals): void {
    if (!ProcessIdentity.isRunning(target)) return;
    try {
      process.kill(target.pid, signal);
    } catch {
      // Gone in between.
    }
  }
}
