import { ProcessNotificationsClient, type RetryNotice } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { CommandOutcome } from './command-outcome.interface.js';
import { CommandRunner, KILL_GRACE_MS } from './command.runner.js';
import { CommandWatchdog } from './command.watchdog.js';
import { CompletionMapper } from './completion.mapper.js';
import { DeliveryRejectedError } from './delivery-rejected.error.js';
import { EntryDeliverer } from './entry.deliverer.js';
import { LoopAccessChecker } from './loop-access.checker.js';
import { ProcessIdentity } from './process-identity.js';
import { StateDirectoryStore } from './state-directory.store.js';
import type { StateEntry } from './state-entry.interface.js';
import type { StderrReporter } from './stderr.reporter.js';
import type { SupervisorOptions } from './supervisor-options.interface.js';
import type { SupervisorTracing } from './supervisor-tracing.js';
import { UnusableAnswerError } from './unusable-answer.error.js';
import { UsageError } from './usage.error.js';

type StopSignal = 'SIGTERM' | 'SIGINT';

/** Why the supervisor stopped waiting for the server before an answer. */
type GiveUp = 'deadline' | 'shutdown_wait' | 'stopped_again' | 'stopped_before_start';

/**
 * The same stop signal again within this long is the same stop request: a terminal's Ctrl-C
 * (or systemd's stop) reaches the whole process group, so under npm the supervisor gets it
 * twice, from the terminal and forwarded by npm. The command's own grace period.
 */
export const SIGNAL_GRACE_MS = KILL_GRACE_MS;

// Retry waits: a supervisor outlives a server restart without hammering it.
const RETRY = { baseDelayMs: 500, maxDelayMs: 15_000 };
// A command ended by SIGINT or SIGTERM (or exiting 130 or 143, as a shell does then) may have
// got the signal a terminal or systemd sent to the whole group before the supervisor handled its
// own copy: the supervisor waits this long for it before it calls the end the command's own.
const GROUP_SIGNAL_SETTLE_MS = 250;
// How long an orphaned command of an earlier run may take to go after SIGKILL.
const ORPHAN_KILL_WAIT_MS = 2_000;

/** Now as RFC 3339, never before `notBefore` (a clock step back must not make a record invalid). */
const timestamp = (notBefore?: string): string =>
  new Date(Math.max(Date.now(), notBefore === undefined ? 0 : Date.parse(notBefore))).toISOString();

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/** The supervisor's exit status when the server did not answer the check before the command (EX_UNAVAILABLE). */
export const NO_ANSWER_STATUS = 69;

/**
 * One supervisor run (spec sections 10 and 14): first finish what earlier runs left in the
 * state directory, then run the command, publish its lifecycle and completion, and return the
 * exit status the process should end with.
 */
export class Supervisor {
  private readonly abort = new AbortController();
  private readonly store: StateDirectoryStore;
  private readonly deliverer: EntryDeliverer;
  private readonly checker: LoopAccessChecker;
  private toldEnded = false;
  private received: StopSignal | undefined;
  private receivedAt = 0;
  private giveUp: GiveUp | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private shutdownWaitStarted = false;
  private onStopRequest: () => void = () => undefined;
  private runner: CommandRunner | undefined;
  private entry: StateEntry | undefined;
  private serverUnavailable!: () => void;
  private readonly serverUnavailableOnce = new Promise<void>((resolve) => (this.serverUnavailable = resolve));

  constructor(
    private readonly options: SupervisorOptions,
    private readonly reporter: StderrReporter,
    private readonly tracing?: SupervisorTracing,
  ) {
    this.store = new StateDirectoryStore(resolve(options.stateDir));
    const client = new ProcessNotificationsClient({
      baseUrl: options.server,
      token: options.token,
      retry: RETRY,
      ...(tracing ? { fetch: tracing.fetch, propagateTraceContext: tracing.propagate, onRetry: tracing.retrying } : {}),
    });
    this.deliverer = new EntryDeliverer(client, this.store, reporter, this.abort.signal, (notice, entry) => this.retrying(notice, entry));
    this.checker = new LoopAccessChecker(client);
  }

  async run(): Promise<number> {
    const { commandId } = this.options;
    // A usage error: before anything is run or sent.
    if (commandId !== undefined && this.store.has(commandId)) {
      throw new UsageError(`--command-id ${commandId} already has an entry in ${this.store.directory}`);
    }
    const onSignal = (signal: StopSignal): void => this.onSignal(signal);
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
      const refused = await this.checkLoop();
      if (refused !== undefined) return refused;
      await this.finishLeftovers();
      if (this.received) {
        this.reporter.error(
          `received ${this.received} before the command started: not started; earlier entries stay in ${this.store.directory}`,
        );
        return this.statusFor(this.received);
      }
      return await this.runCommand();
    } finally {
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      this.timers.forEach(clearTimeout);
    }
  }

  /**
   * Before anything runs: asks the server whether it takes this token, session and loop, so a
   * wrong setting is told before the command runs rather than after (when its status would be
   * lost behind a refusal). Returns the exit status when the command must not run: 2 for a
   * refusal, {@link NO_ANSWER_STATUS} when the server did not answer within `--start-wait`;
   * undefined to go on (also after a stop signal, which `run` reports).
   */
  private async checkLoop(): Promise<number | undefined> {
    const { options } = this;
    if (!options.check) return undefined;
    const access = await this.checker.check(options.sessionId, options.loopId, {
      waitMs: options.startWaitMs,
      signal: this.abort.signal,
      onWaiting: (notice) =>
        this.reporter.progress(
          `the server at ${options.server} does not answer (${notice.reason}); waiting up to ${seconds(options.startWaitMs)} (--start-wait) before running the command`,
        ),
    });
    switch (access.kind) {
      case 'refused':
        this.reporter.error(`not running the command: ${access.why}`);
        return 2;
      case 'no_answer':
        this.reporter.error(
          `not running the command: the server at ${options.server} did not answer within ${seconds(options.startWaitMs)} (${access.why}); ` +
            '--start-wait waits longer, --no-check runs it anyway',
        );
        return NO_ANSWER_STATUS;
      default:
        return undefined;
    }
  }

  /**
   * A delivery failed and will be retried. The first time that happens after the command
   * ended, say so once, with the status the supervisor will exit with: the user sees that
   * the command is over and only the delivery is waited for.
   */
  private retrying(_notice: RetryNotice, entry: StateEntry): void {
    this.serverUnavailable();
    if (entry !== this.entry || !entry.completion || this.toldEnded) return;
    this.toldEnded = true;
    this.reporter.progress(
      `the command ended (exit status ${entry.completion.exit_status}, ${entry.completion.state}); the server does not take its records yet: ` +
        `retrying, then exiting with that status (the entry is kept in ${this.store.directory} meanwhile)`,
    );
  }

  /**
   * Delivers what abandoned entries hold, under their original ids; a command that was running
   * when its supervisor died is ended if it still runs, then reported lost. Waits until they are
   * answered, or until the server turns out to be unavailable: the own command is not held up
   * by an outage (its records are queued behind the leftovers and keep their order).
   */
  private async finishLeftovers(): Promise<void> {
    const { entries, rejected, otherSessions, elsewhere, skipped } = this.store.takeOverAbandoned(this.options.sessionId);
    // Left as they are, whatever --quiet says: nobody delivers them until someone looks.
    for (const { name, problem } of skipped) {
      this.reporter.error(`skipped ${name} in ${this.store.directory}: ${problem} (see pn-supervise status and forget)`);
    }
    // Said once, by the first later run (the entry records it): a refused entry never leaves by
    // itself, but saying so on every run would bury what else the runs print; status lists it.
    if (rejected > 0)
      this.reporter.progress(
        `${rejected} entr${rejected === 1 ? 'y' : 'ies'} in ${this.store.directory} the server refused earlier; kept, not retried: ` +
          `pn-supervise status --state-dir ${this.store.directory} lists them, pn-supervise forget COMMAND_ID --state-dir ${this.store.directory} removes one`,
      );
    if (otherSessions > 0)
      this.reporter.progress(
        `${otherSessions} abandoned entr${otherSessions === 1 ? 'y' : 'ies'} of other sessions left in ${this.store.directory}`,
      );
    if (elsewhere > 0)
      this.reporter.progress(
        `${elsewhere} entr${elsewhere === 1 ? 'y of a supervisor' : 'ies of supervisors'} in another PID namespace or on another machine left alone in ${this.store.directory}`,
      );
    const deliveries: Array<Promise<unknown>> = [];
    for (const entry of entries) {
      if (!entry.completion) {
        await this.endOrphan(entry);
        entry.completion = {
          state: 'lost_on_restore',
          reason: 'lost_on_restore',
          diagnostic: 'the supervisor stopped before the command ended',
          finished_at: timestamp(entry.started_at ?? entry.created_at),
          exit_status: 0,
        };
        delete entry.command_process;
        this.store.save(entry);
      }
      this.reporter.progress(`finishing an earlier run: command ${entry.command_id} (${entry.completion.state})`);
      deliveries.push(
        this.deliverer.drain(entry).catch((error: unknown) => {
          if (error instanceof DeliveryRejectedError) {
            this.reporter.error(
              `the server refused a record of command ${entry.command_id}: ${error.problem.detail} (kept in the state directory)`,
            );
          } else if (error instanceof UnusableAnswerError) {
            this.reporter.error(`${error.message} (command ${entry.command_id} is kept in the state directory)`);
          } else if (!this.abort.signal.aborted) {
            throw error;
          }
        }),
      );
    }
    if (deliveries.length === 0) return;
    const aborted = new Promise<void>((resolve) =>
      this.abort.signal.aborted ? resolve() : this.abort.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([Promise.all(deliveries), this.serverUnavailableOnce, aborted]);
  }

  /** The command of a dead supervisor that still runs (its watchdog could not end it): SIGKILL. */
  private async endOrphan(entry: StateEntry): Promise<void> {
    const orphan = entry.command_process;
    if (!orphan || !ProcessIdentity.isRunning(orphan)) return;
    CommandWatchdog.signal(orphan, 'SIGKILL');
    const deadline = Date.now() + ORPHAN_KILL_WAIT_MS;
    while (ProcessIdentity.isRunning(orphan) && Date.now() < deadline) await new Promise((next) => setTimeout(next, 20));
    this.reporter.progress(`ended the command of an earlier run, still running without its supervisor: command ${entry.command_id}`);
  }

  private async runCommand(): Promise<number> {
    const { options } = this;
    const entry: StateEntry = {
      version: 1,
      command_id: options.commandId ?? randomUUID(),
      origin_execution_id: randomUUID(),
      session_id: options.sessionId,
      loop_id: options.loopId,
      process_handle: options.handle,
      event_ids: { started: randomUUID(), stop_requested: randomUUID(), completed: randomUUID(), lost: randomUUID() },
      created_at: timestamp(),
      published: [],
    };
    // Durable before anything runs or is published.
    this.store.save(entry);
    this.tracing?.describeRun({ sessionId: entry.session_id, loopId: entry.loop_id, commandId: entry.command_id });
    this.entry = entry;
    // What an agent that launched this waits for (spec section 14).
    if (options.ids) this.reporter.error(`command_id=${entry.command_id} process_handle=${entry.process_handle}`);
    let rejection: DeliveryRejectedError | UnusableAnswerError | undefined;
    const runner = new CommandRunner(
      options.command,
      options.args,
      { env: options.commandEnv },
      { timeoutMs: options.timeoutMs, outputLimit: options.outputLimit },
    );
    this.runner = runner;
    const watch = (delivery: Promise<unknown>): void => {
      delivery.catch((error: unknown) => {
        if (!(error instanceof DeliveryRejectedError) && !(error instanceof UnusableAnswerError)) return;
        rejection ??= error;
        runner.stop('rejected');
      });
    };
    runner.start(() => {
      entry.started_at = timestamp(entry.created_at);
      entry.command_process = runner.process;
      this.store.save(entry);
      // A stop asked for before the command ran is passed on now.
      if (this.received) runner.shutdown(this.received);
      watch(this.deliverer.drain(entry));
    });
    const ended = await runner.outcome;
    if (Supervisor.maybeGroupSignal(ended) && !this.received) await this.signalOrTimeout(GROUP_SIGNAL_SETTLE_MS);
    const outcome = this.asShutdown(ended);
    const mapped = CompletionMapper.map(outcome);
    entry.completion = { ...mapped, finished_at: timestamp(entry.started_at ?? entry.created_at) } as StateEntry['completion'];
    delete entry.command_process;
    this.store.save(entry);
    if (outcome.kind === 'not_started') this.reporter.error(mapped.diagnostic!);
    if (rejection) return this.refused(rejection);
    if (this.received) this.startShutdownWait();
    if (options.deadlineMs !== undefined) this.timers.push(setTimeout(() => this.stopWaiting('deadline'), options.deadlineMs));
    if (this.giveUp) return this.gaveUp(entry, mapped.exit_status);
    try {
      await this.deliverer.drain(entry);
    } catch (error) {
      if (error instanceof DeliveryRejectedError || error instanceof UnusableAnswerError) return this.refused(error);
      if (this.giveUp) return this.gaveUp(entry, mapped.exit_status);
      throw error;
    }
    return mapped.exit_status;
  }

  private static maybeGroupSignal(outcome: CommandOutcome): boolean {
    if (outcome.kind !== 'ended') return false;
    return outcome.signal === 'SIGINT' || outcome.signal === 'SIGTERM' || outcome.code === 130 || outcome.code === 143;
  }

  /** Resolves at the first stop signal, or after `ms`. */
  private signalOrTimeout(ms: number): Promise<void> {
    return new Promise((done) => {
      const timer = setTimeout(done, ms);
      this.onStopRequest = () => {
        clearTimeout(timer);
        done();
      };
    });
  }

  /**
   * A stop request that came while the command ran makes its end `runner_shutdown`, whatever
   * ended it: under a terminal the command gets the group's signal itself, and may be gone
   * before the supervisor passed it on.
   */
  private asShutdown(outcome: CommandOutcome): CommandOutcome {
    if (!this.received || outcome.kind !== 'ended' || outcome.stopCause === 'runner_shutdown') return outcome;
    return { ...outcome, stopCause: 'runner_shutdown', shutdownSignal: this.received };
  }

  /**
   * SIGTERM or SIGINT to the supervisor. The first one is the stop request: while the command
   * runs, one `stop_requested` record and the signal passed on once; then the completion is
   * still delivered, waiting at most `--shutdown-wait` for the server once the command ended.
   * The same signal again within {@link SIGNAL_GRACE_MS} is the same request and changes
   * nothing; another signal, or the same one later, cuts the wait short (the command, if it
   * still runs, is SIGKILLed): what is not answered stays in the state directory.
   */
  private onSignal(signal: StopSignal): void {
    if (this.received) {
      if (signal === this.received && Date.now() - this.receivedAt < SIGNAL_GRACE_MS) return;
      this.reporter.error(`received ${signal} after ${this.received}: not waiting any longer`);
      this.runner?.kill();
      this.stopWaiting('stopped_again');
      return;
    }
    this.received = signal;
    this.receivedAt = Date.now();
    const { runner, entry } = this;
    if (!runner || !entry) {
      // Still finishing earlier runs: those stay in the state directory, the command is not started.
      this.stopWaiting('stopped_before_start');
      return;
    }
    const wait = `${seconds(this.options.shutdownWaitMs)} (--shutdown-wait)`;
    const kept = `what is not delivered by then stays in ${this.store.directory} for the next run`;
    if (!entry.completion) {
      entry.stop_request = { reason: signal === 'SIGINT' ? 'interrupted' : 'terminated' };
      this.store.save(entry);
      this.onStopRequest();
      if (runner.isRunning) {
        this.reporter.error(
          `received ${signal}: passed on to the command (SIGKILL in ${seconds(KILL_GRACE_MS)} if it still runs); ` +
            `its end is reported as a stop and delivered, waiting at most ${wait} for the server; ${kept}`,
        );
        runner.shutdown(signal);
        void this.deliverer.drain(entry).catch(() => undefined);
      } else {
        this.reporter.error(`received ${signal} as the command ended: delivering its end, waiting at most ${wait} for the server; ${kept}`);
      }
      return;
    }
    // The command has ended: its records are being delivered, for a bounded time.
    this.reporter.error(
      `received ${signal}: the command already ended (exit status ${entry.completion.exit_status}); ` +
        `delivering its records, waiting at most ${wait} more for the server; ${kept}`,
    );
    this.startShutdownWait();
  }

  private startShutdownWait(): void {
    if (this.shutdownWaitStarted) return;
    this.shutdownWaitStarted = true;
    this.timers.push(setTimeout(() => this.stopWaiting('shutdown_wait'), this.options.shutdownWaitMs));
  }

  private stopWaiting(why: GiveUp): void {
    this.giveUp ??= why;
    this.abort.abort(new Error(why));
  }

  /** The wait for the server ended before an answer: the entry is kept for a later run. */
  private gaveUp(entry: StateEntry, exitStatus: number): number {
    const kept = `command ${entry.command_id} is kept in ${this.store.directory}; the next run with this state directory delivers it`;
    switch (this.giveUp) {
      case 'deadline':
        this.reporter.error(`no answer from the server ${seconds(this.options.deadlineMs!)} after the command ended (--deadline): ${kept}`);
        return 75;
      case 'shutdown_wait':
        this.reporter.error(`stopped; the server did not answer within ${seconds(this.options.shutdownWaitMs)}: ${kept}`);
        return this.received ? this.statusFor(this.received) : exitStatus;
      default:
        this.reporter.error(`stopped before the server answered: ${kept}`);
        return this.received ? this.statusFor(this.received) : exitStatus;
    }
  }

  private refused(rejection: DeliveryRejectedError | UnusableAnswerError): number {
    if (rejection instanceof UnusableAnswerError) {
      // Not marked refused: nothing says the server refused it.
      this.reporter.error(
        `${rejection.message}; command ${this.entry?.command_id ?? ''} is kept in ${this.store.directory}: ` +
          'the next run with this state directory sends it again',
      );
      return 2;
    }
    const { status, code } = rejection.problem;
    this.reporter.error(
      `the server refused the record (${status} ${code}): ${rejection.problem.detail}; it is kept in ${this.store.directory}, never retried ` +
        `(pn-supervise forget ${this.entry?.command_id ?? 'COMMAND_ID'} --state-dir ${this.store.directory} removes it)`,
    );
    return 2;
  }

  private statusFor(signal: StopSignal): number {
    return 128 + constants.signals[signal];
  }
}
