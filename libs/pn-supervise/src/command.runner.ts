import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { CommandOutcome, StopCause } from './command-outcome.interface.js';
import { CommandWatchdog } from './command.watchdog.js';
import { ProcessIdentity, type ProcessIdentityValue } from './process-identity.js';

/** After SIGTERM, how long the command gets before SIGKILL (spec section 10). */
export const KILL_GRACE_MS = 5_000;
// How long output still buffered in the pipes may take to arrive after the command exited.
const PIPE_DRAIN_MS = 1_000;

/** Limits of one run. */
export interface CommandLimits {
  /** Stop it after this long. */
  readonly timeoutMs?: number;
  /** Stop it once its stdout plus stderr exceed this many bytes. */
  readonly outputLimit?: number;
}

/** How the command starts. */
export interface CommandSetting {
  /** Its whole environment (not added to the supervisor's: see `CommandEnvironmentFilter`). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Runs one command with the supervisor's own stdin, stdout and stderr, in the environment it is
 * given, and reports how it ended. The streams are inherited untouched; only with an output
 * limit are stdout and stderr piped, and then forwarded byte for byte while being counted.
 * Whoever stops the command (timeout, output limit, the supervisor's own shutdown) sends
 * SIGTERM once, then SIGKILL after {@link KILL_GRACE_MS}.
 */
export class CommandRunner {
  /** Resolves once the command ended or could not start. */
  readonly outcome: Promise<CommandOutcome>;
  private child: ChildProcess | undefined;
  private identity: ProcessIdentityValue | undefined;
  private running = false;
  private stopCause: StopCause | undefined;
  private shutdownSignal: 'SIGTERM' | 'SIGINT' | undefined;
  private signalled = false;
  private shutdownForwarded = false;
  private escalated = false;
  private counted = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private resolveOutcome!: (outcome: CommandOutcome) => void;

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly setting: CommandSetting,
    private readonly limits: CommandLimits = {},
  ) {
    this.outcome = new Promise((resolve) => (this.resolveOutcome = resolve));
  }

  /** True between the start and the end of the command. */
  get isRunning(): boolean {
    return this.running;
  }

  /** The command's process, once it runs. */
  get process(): ProcessIdentityValue | undefined {
    return this.identity;
  }

  /** Starts the command; `onStarted` runs synchronously once it runs. */
  start(onStarted: () => void): void {
    const counting = this.limits.outputLimit !== undefined;
    const child = spawn(this.command, [...this.args], {
      stdio: counting ? ['inherit', 'pipe', 'pipe'] : 'inherit',
      // Exactly this environment: never the supervisor's token or settings unless passed.
      env: { ...this.setting.env },
    });
    this.child = child;
    // The command never outlives its supervisor: whatever ends the supervisor's event loop, and
    // a SIGKILL through the watchdog.
    const killOnExit = (): void => void (this.running && child.kill('SIGKILL'));
    process.once('exit', killOnExit);
    child.once('spawn', () => {
      this.running = true;
      this.identity = ProcessIdentity.of(child.pid!);
      CommandWatchdog.start(this.identity);
      if (this.limits.timeoutMs !== undefined) {
        this.timers.push(setTimeout(() => this.stop('timeout', 'SIGTERM'), this.limits.timeoutMs));
      }
      onStarted();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (this.running) return;
      process.removeListener('exit', killOnExit);
      this.resolveOutcome({ kind: 'not_started', errno: error.code ?? 'EUNKNOWN' });
    });
    const forwarded = counting ? [this.forward(child.stdout!, process.stdout), this.forward(child.stderr!, process.stderr)] : [];
    child.once('exit', (code, signal) => {
      this.running = false;
      process.removeListener('exit', killOnExit);
      this.timers.forEach(clearTimeout);
      // Output still in the pipes is forwarded before the end is reported (bounded: a
      // background grandchild may hold the pipes open).
      let drained: NodeJS.Timeout | undefined;
      const bounded = new Promise<void>((resolve) => (drained = setTimeout(resolve, PIPE_DRAIN_MS)));
      void Promise.race([Promise.all(forwarded), bounded]).then(() => {
        clearTimeout(drained);
        this.resolveOutcome({
          kind: 'ended',
          code,
          signal,
          escalated: this.escalated,
          ...(this.stopCause ? { stopCause: this.stopCause } : {}),
          ...(this.shutdownSignal ? { shutdownSignal: this.shutdownSignal } : {}),
        });
      });
    });
  }

  /**
   * The supervisor was told to stop: pass `signal` on once (it is reported as
   * `runner_shutdown`, whatever else stopped the command before).
   */
  shutdown(signal: 'SIGTERM' | 'SIGINT'): void {
    if (!this.running || this.shutdownForwarded) return;
    this.shutdownForwarded = true;
    this.shutdownSignal = signal;
    this.stopCause = 'runner_shutdown';
    if (this.signalled) this.child!.kill(signal);
    else this.stop('runner_shutdown', signal);
  }

  /** Stops the command: `signal` now, SIGKILL after the grace period. The first cause is kept. */
  stop(cause: StopCause, signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.running || this.signalled) return;
    this.signalled = true;
    this.stopCause ??= cause;
    this.child!.kill(signal);
    const escalation = setTimeout(() => {
      if (!this.running) return;
      this.escalated = true;
      this.child!.kill('SIGKILL');
    }, KILL_GRACE_MS);
    this.timers.push(escalation);
  }

  /** SIGKILL now (a second stop request that cuts the shutdown short); reported `killed`. */
  kill(): void {
    if (!this.running) return;
    this.escalated = true;
    this.child!.kill('SIGKILL');
  }

  private forward(from: Readable, to: Writable): Promise<void> {
    const limit = this.limits.outputLimit!;
    from.on('data', (chunk: Buffer) => {
      this.counted += chunk.length;
      if (this.counted > limit) this.stop('output_limit');
    });
    from.pipe(to, { end: false });
    return new Promise((resolve) => from.once('close', resolve));
  }
}
