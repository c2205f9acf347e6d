import {
  LIFECYCLE_KINDS,
  isProcessState,
  isTerminalReason,
  type JournalRecord,
  type LifecycleKind,
  type ProcessState,
  type TerminalReason,
} from 'process-notifications-contract';

/** What the journal says about one process handle of a loop. */
export interface HandleLifecycle {
  readonly processHandle: string;
  /** When each kind was journaled (the first record of that kind). */
  readonly at: Partial<Record<LifecycleKind, string>>;
  /** State and reason of the latest record. */
  readonly state: ProcessState | undefined;
  readonly reason: TerminalReason | undefined;
  readonly exitCode: number | undefined;
  /** The signal that ended the process (`SIGSEGV`), as its `completed` record names it. */
  readonly signal: string | undefined;
  readonly lastSequence: number;
}

/** A notification of the loop as its journal record says, for the unconsumed list. */
export interface JournaledNotification {
  readonly commandId: string;
  readonly sequence: number;
  readonly createdAt: string;
  /** Null once retention dropped the payload. */
  readonly processHandle: string | null;
  readonly state: ProcessState | null;
  readonly reason: TerminalReason | null;
}

const isLifecycleKind = (kind: string): kind is LifecycleKind => (LIFECYCLE_KINDS as readonly string[]).includes(kind);

/**
 * One loop's history, folded from its session's journal records as they stream in: each
 * process handle's lifecycle, when each notification was journaled, and which are consumed.
 */
export class LoopHistory {
  private readonly handles = new Map<string, HandleLifecycle>();
  private readonly journaledAt = new Map<number, string>();
  private readonly notified = new Map<string, JournaledNotification>();
  private readonly consumed = new Set<string>();

  constructor(readonly loopId: string) {}

  /** Takes in one record of the session; false when it is not about this loop. */
  add(record: JournalRecord): boolean {
    if (record.loop_id !== this.loopId) return false;
    if (record.kind === 'process_notification') {
      this.journaledAt.set(record.sequence, record.created_at);
      const payload = (record.payload ?? null) as Record<string, unknown> | null;
      const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
      this.notified.set(record.idempotency_id, {
        commandId: record.idempotency_id,
        sequence: record.sequence,
        createdAt: record.created_at,
        processHandle: text(payload?.process_handle),
        state: isProcessState(payload?.state) ? payload.state : null,
        reason: isTerminalReason(payload?.reason) ? payload.reason : null,
      });
    } else if (record.kind === 'process_notification_consumed' && record.cause_command_id) {
      this.consumed.add(record.cause_command_id);
    } else if (isLifecycleKind(record.kind) && record.payload) {
      this.addLifecycle(record.kind, record);
    }
    return true;
  }

  /** When the notification journaled at `sequence` was journaled, once its record has been seen. */
  journaledAtOf(sequence: number): string | undefined {
    return this.journaledAt.get(sequence);
  }

  /** Notifications of the loop seen in the journal without a consumed record. */
  get unconsumed(): number {
    return this.unconsumedNotifications.length;
  }

  /** Those notifications, in journal order (oldest first): pending, or refused by the loop. */
  get unconsumedNotifications(): readonly JournaledNotification[] {
    return [...this.notified.values()].filter((n) => !this.consumed.has(n.commandId)).sort((a, b) => a.sequence - b.sequence);
  }

  /** Every process handle of the loop, the most recently active first. */
  get lifecycles(): readonly HandleLifecycle[] {
    return [...this.handles.values()].sort((a, b) => b.lastSequence - a.lastSequence);
  }

  private addLifecycle(kind: LifecycleKind, record: JournalRecord): void {
    const payload = record.payload as Record<string, unknown>;
    const processHandle = String(payload.process_handle ?? '');
    const previous = this.handles.get(processHandle);
    this.handles.set(processHandle, {
      processHandle,
      at: { [kind]: record.created_at, ...previous?.at },
      state: isProcessState(payload.state) ? payload.state : previous?.state,
      reason: isTerminalReason(payload.reason) ? payload.reason : undefined,
      exitCode: payload.has_exit_code === true && typeof payload.exit_code === 'number' ? payload.exit_code : previous?.exitCode,
      signal: typeof payload.signal === 'string' ? payload.signal : previous?.signal,
      lastSequence: record.sequence,
    });
  }
}
