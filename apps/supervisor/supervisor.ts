import { ProcessNotificationsClient } from 'process-notifications-client';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { CommandRunner } from './command.runner.js';
import { CompletionMapper } from './completion.mapper.js';
import { DeliveryRejectedError } from './delivery-rejected.error.js';
import { EntryDeliverer } from './entry.deliverer.js';
import { StateDirectoryStore } from './state-directory.store.js';
import type { StateEntry } from './state-entry.interface.js';
import type { StderrReporter } from './stderr.reporter.js';
import type { SupervisorOptions } from './supervisor-options.interface.js';
import { SupervisorTracing } from './supervisor-tracing.js';

type StopSignal = 'SIGTERM' | 'SIGINT';

// Retry waits: a supervisor outlives a server restart without hammering it.
const RETRY = { baseDelayMs: 500, maxDelayMs: 15_000 };

/** Now as RFC 3339, never before `notBefore` (a clock step back must not make a record invalid). */
const timestamp = (notBefore?: string): string =>
  new Date(Math.max(Date.now(), notBefore === undefined ? 0 : Date.parse(notBefore))).toISOString();

/**
 * One supervisor run (spec section 10): first finish what earlier runs left in the state
 * directory, then run the command, publish its lifecycle and completion, and return the exit
 * status the process should end with.
 */
export class Supervisor {
  private readonly abort = new AbortController();
  private readonly store: StateDirectoryStore;
  private readonly deliverer: EntryDeliverer;
  private received: StopSignal | undefined;
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
    this.deliverer = new EntryDeliverer(client, this.store, reporter, this.abort.signal, () => this.serverUnavailable());
  }

  async run(): Promise<number> {
    const onSignal = (signal: StopSignal): void => this.onSignal(signal);
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
      await this.finishLeftovers();
      if (this.received) return this.statusFor(this.received);
      return await this.runCommand();
    } finally {
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
    }
  }

  /**
   * Delivers what abandoned entries hold, under their original ids; a command that was running
   * when its supervisor died is reported lost. Waits until they are answered, or until the
   * server turns out to be unavailable: the own command is not held up by an outage (its records
   * are queued behind the leftovers and keep their order).
   */
  private async finishLeftovers(): Promise<void> {
    const { entries, rejected, otherSessions } = this.store.takeOverAbandoned(this.options.sessionId);
    if (rejected > 0)
      this.reporter.progress(
        `${rejected} entr${rejected === 1 ? 'y' : 'ies'} in ${this.store.directory} the server refused earlier; kept, not retried`,
      );
    if (otherSessions > 0)
      this.reporter.progress(
        `${otherSessions} abandoned entr${otherSessions === 1 ? 'y' : 'ies'} of other sessions left in ${this.store.directory}`,
      );
    const deliveries = entries.map((entry) => {
      if (!entry.completion) {
        entry.completion = {
          state: 'lost_on_restore',
          reason: 'lost_on_restore',
          diagnostic: 'the supervisor stopped before the command ended',
          finished_at: timestamp(entry.started_at ?? entry.created_at),
          exit_status: 0,
        };
        this.store.save(entry);
      }
      this.reporter.progress(`finishing an earlier run: command ${entry.command_id} (${entry.completion.state})`);
      return this.deliverer.drain(entry).catch((error: unknown) => {
        if (error instanceof DeliveryRejectedError) {
          this.reporter.error(
            `the server refused a record of command ${entry.command_id}: ${error.problem.detail} (kept in the state directory)`,
          );
        } else if (!this.abort.signal.aborted) {
          throw error;
        }
      });
    });
    if (deliveries.length === 0) return;
    const aborted = new Promise<void>((resolve) =>
      this.abort.signal.aborted ? resolve() : this.abort.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([Promise.all(deliveries), this.serverUnavailableOnce, aborted]);
  }

  private async runCommand(): Promise<number> {
    const { options } = this;
    const entry: StateEntry = {
      version: 1,
      command_id: randomUUID(),
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
    let rejection: DeliveryRejectedError | undefined;
    const runner = new CommandRunner(options.command, options.args, { timeoutMs: options.timeoutMs, outputLimit: options.outputLimit });
    this.runner = runner;
    const watch = (delivery: Promise<unknown>): void => {
      delivery.catch((error: unknown) => {
        if (!(error instanceof DeliveryRejectedError)) return;
        rejection ??= error;
        runner.stop('rejected');
      });
    };
    runner.start(() => {
      entry.started_at = timestamp(entry.created_at);
      this.store.save(entry);
      // A stop asked for before the command ran is passed on now.
      if (this.received) runner.shutdown(this.received);
      watch(this.deliverer.drain(entry));
    });
    const outcome = await runner.outcome;
    const mapped = CompletionMapper.map(outcome);
    entry.completion = { ...mapped, finished_at: timestamp(entry.started_at ?? entry.created_at) } as StateEntry['completion'];
    this.store.save(entry);
    if (outcome.kind === 'not_started') this.reporter.error(mapped.diagnostic!);
    if (rejection) return this.refused(rejection);
    try {
      await this.deliverer.drain(entry);
    } catch (error) {
      if (error instanceof DeliveryRejectedError) return this.refused(error);
      if (this.abort.signal.aborted && this.received) {
        this.reporter.error(`stopped before the server answered; the next run with this state directory delivers it`);
        return this.statusFor(this.received);
      }
      throw error;
    }
    return mapped.exit_status;
  }

  /**
   * SIGTERM or SIGINT to the supervisor: while the command runs, one `stop_requested` record and
   * the signal passed on once (further signals are ignored until it ended); otherwise stop
   * waiting for the server (what is not answered stays in the state directory for the next run).
   */
  private onSignal(signal: StopSignal): void {
    const { runner, entry } = this;
    if (runner && entry && !entry.completion) {
      if (this.received) return;
      this.received = signal;
      entry.stop_request = { reason: signal === 'SIGINT' ? 'interrupted' : 'terminated' };
      this.store.save(entry);
      if (runner.isRunning) {
        runner.shutdown(signal);
        void this.deliverer.drain(entry).catch(() => undefined);
      }
      return;
    }
    this.received ??= signal;
    this.abort.abort(new Error(`received ${signal}`));
  }

  private refused(rejection: DeliveryRejectedError): number {
    const { status, code } = rejection.problem;
    this.reporter.error(
      `the server refused the record (${status} ${code}): ${rejection.problem.detail}; it is kept in ${this.store.directory}`,
    );
    return 2;
  }

  private statusFor(signal: StopSignal): number {
    return 128 + constants.signals[signal];
  }
}
