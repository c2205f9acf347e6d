import type { LoopEngine, LoopState, StopCause, SuccessDisposition } from '../vocabulary/process-vocabulary.js';
import type { ProcessCompletionNotification } from '../model/process-completion-notification.interface.js';
import type { PendingProcessNotification } from '../model/pending-process-notification.interface.js';

/** How many command ids consumed while not held a loop remembers (see {@link ProcessLoop.consumed}). */
export const CONSUMED_UNHELD_KEPT = 1024;

/** What a loop answers when a notification is offered to it. */
export type LoopAnswer = { readonly disposition: SuccessDisposition } | { readonly disposition: 'stopped'; readonly cause: StopCause };

/**
 * An in-process loop actor: its state and its bounded, insertion-ordered pending set of
 * accepted notifications, keyed by command id. All of its methods are synchronous, so on
 * Node's single thread each offer or consume is atomic.
 */
export class ProcessLoop {
  private readonly pending = new Map<string, PendingProcessNotification>();
  // Command ids consumed while the set did not hold them (see consumed()), oldest first.
  private readonly consumedUnheld = new Set<string>();

  constructor(
    readonly sessionId: string,
    readonly loopId: string,
    readonly engine: LoopEngine,
    private currentState: LoopState,
    readonly capacity: number,
    // Told every change of the pending set's size, so the owner keeps a running total.
    private onResize: (delta: number) => void = () => {},
  ) {}

  get state(): LoopState {
    return this.currentState;
  }

  get size(): number {
    return this.pending.size;
  }

  /** The pending set in acceptance order. */
  list(): PendingProcessNotification[] {
    return [...this.pending.values()];
  }

  has(commandId: string): boolean {
    return this.pending.has(commandId);
  }

  /**
   * The pending entry of a journaled notification addressed to this loop (live, or read back at
   * restore), with its journal sequence. Its session and loop ids are the loop's own strings
   * (equal to the notification's), so the entries a loop holds share two strings instead of
   * carrying a copy each.
   */
  pendingEntry(notification: ProcessCompletionNotification, sequence: number): PendingProcessNotification {
    return {
      commandId: notification.command_id,
      sessionId: this.sessionId,
      loopId: this.loopId,
      processHandle: notification.process_handle,
      state: notification.state,
      reason: notification.reason,
      sequence,
    };
  }

  /** Live delivery: respects routing, the stopped state and the capacity. */
  offer(notification: PendingProcessNotification): LoopAnswer {
    if (notification.sessionId !== this.sessionId || notification.loopId !== this.loopId) {
      return { disposition: 'stopped', cause: 'misrouted' };
    }
    // Already held: a redelivery, even after a stop, must not make the supervisor retry forever.
    if (this.pending.has(notification.commandId)) return { disposition: 'duplicate' };
    if (this.currentState === 'stopped') return { disposition: 'stopped', cause: 'loop_stopped' };
    if (this.pending.size >= this.capacity) return { disposition: 'stopped', cause: 'inbox_full' };
    this.pending.set(notification.commandId, notification);
    this.onResize(1);
    return { disposition: 'accepted' };
  }

  /** Restore: straight into the set, no capacity check, so nothing journaled is dropped. */
  restore(notification: PendingProcessNotification): void {
    // One lookup, not two: restore runs once per pending notification of the whole journal.
    const before = this.pending.size;
    this.pending.set(notification.commandId, notification);
    if (this.pending.size > before) this.onResize(1);
  }

  /**
   * A consumed record of this command id committed: removes it from the set, or, when the set does
   * not hold it, remembers it, so that a dispatch of it still on its way (a notification the loop
   * was given by a stream before its own dispatch put it in the set, or a retry whose journal
   * check came before the consume) does not put a consumed notification back. Remembered for
   * the last {@link CONSUMED_UNHELD_KEPT} such ids: a dispatch is in flight for a few moments.
   */
  consumed(commandId: string): void {
    if (this.remove(commandId)) return;
    this.consumedUnheld.add(commandId);
    if (this.consumedUnheld.size > CONSUMED_UNHELD_KEPT) this.consumedUnheld.delete(this.consumedUnheld.values().next().value!);
  }

  /** True when {@link consumed} was told of this id while the set did not hold it. */
  wasConsumed(commandId: string): boolean {
    return this.consumedUnheld.has(commandId);
  }

  /** Removes a consumed notification; returns false when it was not pending. */
  remove(commandId: string): boolean {
    const removed = this.pending.delete(commandId);
    if (removed) this.onResize(-1);
    return removed;
  }

  /** Tells its owner nothing more (the owner has let go of the loop: it no longer counts). */
  detach(): void {
    this.onResize = () => {};
  }

  stop(): void {
    this.currentState = 'stopped';
  }

  /** Takes back a stop whose journal write failed: nothing about it was committed. */
  undoStop(): void {
    this.currentState = 'running';
  }
}
