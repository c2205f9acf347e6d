import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  DeliveryStoppedError,
  IdempotencyCollisionError,
  isCanonicalUuid,
  normaliseId,
  ProcessNotificationsError,
  RefusalStore,
  type ErrorCode,
  type RefusalRow,
  type StopCause,
} from 'nestjs-process-notifications';
import { REFUSAL_CODES, type RefusalCode } from 'process-notifications-contract';

export { REFUSAL_CODES, type RefusalCode };

// The answers listed as refusals (spec section 12.1) are errors of the library: typed so, a
// refusal code the library never throws does not compile.
const REFUSED_ERRORS: readonly ErrorCode[] = REFUSAL_CODES;

/**
 * Refusals answered but not stored yet, at most: past it the oldest waiting ones are dropped (and
 * counted in the log), so a flood of refusals costs bounded memory while the database is slow.
 */
export const MAX_UNSAVED_REFUSALS = 1000;
/** How long a refusal waits for others to be stored with it, in milliseconds. */
export const REFUSAL_FLUSH_MS = 200;

/** One refused delivery or lifecycle record: ids only, never a token or a body. */
export interface Refusal {
  readonly at: string;
  readonly code: RefusalCode;
  readonly sessionId: string;
  readonly loopId: string | null;
  /** A completion's id; null for a lifecycle record. */
  readonly commandId: string | null;
  /** A lifecycle record's id; null for a completion. */
  readonly eventId: string | null;
  /** The delivery stopped cause, else null. */
  readonly cause: StopCause | null;
  /** A collision: the original's journal sequence; else null. */
  readonly originalSequence: number | null;
  /** A collision: the names (never the values) of the fields that differ from the original's; else null. */
  readonly differingFields: readonly string[] | null;
  /** The node that answered. */
  readonly nodeId: string;
}

/** Which request was refused: a completion (`command_id`) or a lifecycle record (`event_id`). */
export type RefusedRequest = 'completion' | 'lifecycle';

// An id from the refused body, only when it is one (a refused body may hold anything), normalised:
// it enters here, as the body was refused before its DTO's transform.
function idIn(body: unknown, field: string): string | null {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return isCanonicalUuid(value) ? normaliseId(value) : null;
}

/**
 * The refusals answered on the delivery and lifecycle routes, kept in the database (see
 * `RefusalStore`: bounded, newest first), so a restart or another node lists the same ones.
 * Recorded where the answer is made, so a request forwarded to the owner is listed once, by the
 * node whose library refused it. Off the answer's path: {@link record} only queues the refusal;
 * the queue is stored in one transaction every {@link REFUSAL_FLUSH_MS} ms at most, one batch
 * at a time, and is bounded ({@link MAX_UNSAVED_REFUSALS}).
 */
@Injectable()
export class RefusalLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger(RefusalLog.name);
  private unsaved: Refusal[] = [];
  // The batch being stored: still listed from here until its transaction is over.
  private inFlight: readonly Refusal[] = [];
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> | undefined;

  constructor(private readonly store: RefusalStore) {}

  /**
   * Queues `error` if it is one of {@link REFUSAL_CODES}; anything else is not a refusal here.
   * @param sessionId the session of the route (validated), @param body the request's parsed body
   */
  record(request: RefusedRequest, sessionId: string, body: unknown, error: unknown): void {
    if (!(error instanceof ProcessNotificationsError) || !REFUSED_ERRORS.includes(error.code)) return;
    const collision = error instanceof IdempotencyCollisionError ? error : undefined;
    this.unsaved.push({
      at: new Date().toISOString(),
      code: error.code as RefusalCode,
      sessionId,
      loopId: idIn(body, 'loop_id'),
      commandId: request === 'completion' ? idIn(body, 'command_id') : null,
      eventId: request === 'lifecycle' ? idIn(body, 'event_id') : null,
      cause: error instanceof DeliveryStoppedError ? error.stopCause : null,
      originalSequence: collision ? collision.sequence : null,
      differingFields: collision ? [...collision.differingFields] : null,
      nodeId: this.store.nodeId,
    });
    if (this.unsaved.length > MAX_UNSAVED_REFUSALS) {
      this.dropped += this.unsaved.length - MAX_UNSAVED_REFUSALS;
      this.unsaved = this.unsaved.slice(-MAX_UNSAVED_REFUSALS);
    }
    this.schedule();
  }

  /** The newest `limit` refusals of every node, newest first (the ones not stored yet here first). */
  async recent(limit: number): Promise<Refusal[]> {
    const local = this.notStored();
    return this.merge(local, await this.store.recent(limit)).slice(0, limit);
  }

  /** The refusals of deliveries under `commandId` (lower case), newest first. */
  async ofCommand(commandId: string): Promise<Refusal[]> {
    const local = this.notStored().filter((refusal) => refusal.commandId === commandId);
    return this.merge(local, await this.store.ofCommand(commandId));
  }

  // This node's refusals not known to be stored, newest first (taken before the database is read).
  private notStored(): Refusal[] {
    return [...this.inFlight, ...this.unsaved].reverse();
  }

  // `local` before the stored rows, each once: a batch may commit while the database is read.
  private merge(local: readonly Refusal[], stored: readonly RefusalRow[]): Refusal[] {
    const keys = new Set(local.map(keyOf));
    return [...local, ...stored.map(refusalOf).filter((refusal) => !keys.has(keyOf(refusal)))];
  }

  /** Stores what is queued now (tests, shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.saving) await this.saving;
    if (this.unsaved.length === 0) return;
    const batch = this.unsaved;
    this.unsaved = [];
    this.inFlight = batch;
    this.saving = this.store
      .save(batch)
      .catch((error: unknown) => {
        // Metadata of what was already answered: lost, never retried at the callers' cost.
        this.logger.warn(`${batch.length} refusals not stored: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.inFlight = [];
        this.saving = undefined;
      });
    await this.saving;
    if (this.dropped > 0) {
      this.logger.warn(`${this.dropped} refusals dropped unstored: more than ${MAX_UNSAVED_REFUSALS} waited at once`);
      this.dropped = 0;
    }
    if (this.unsaved.length > 0) this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.saving !== undefined) return;
    this.timer = setTimeout(() => void this.flush(), REFUSAL_FLUSH_MS);
    this.timer.unref();
  }
}

// What tells two refusals apart: the same answer read from memory and from the database are one.
function keyOf(refusal: Refusal): string {
  return [refusal.nodeId, refusal.at, refusal.code, refusal.sessionId, refusal.commandId, refusal.eventId, refusal.loopId].join('|');
}

function refusalOf(row: RefusalRow): Refusal {
  return {
    at: row.at,
    code: row.code as RefusalCode,
    sessionId: row.sessionId,
    loopId: row.loopId,
    commandId: row.commandId,
    eventId: row.eventId,
    cause: row.cause as StopCause | null,
    originalSequence: row.originalSequence,
    differingFields: row.differingFields,
    nodeId: row.nodeId,
  };
}
