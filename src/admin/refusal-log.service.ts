import { Injectable } from '@nestjs/common';
import {
  DeliveryStoppedError,
  isCanonicalUuid,
  ProcessNotificationsError,
  type ErrorCode,
  type StopCause,
} from 'nestjs-process-notifications';

/** The answers listed as refusals (spec section 12.1): what supervisors get wrong. */
export const REFUSAL_CODES = [
  'idempotency_collision',
  'delivery_stopped',
  'owner_mismatch',
  'loop_not_found',
  'unsupported_engine',
] as const satisfies readonly ErrorCode[];
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** How many refusals a node keeps: the most recent ones. */
export const MAX_REFUSALS = 1000;

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
}

/** Which request was refused: a completion (`command_id`) or a lifecycle record (`event_id`). */
export type RefusedRequest = 'completion' | 'lifecycle';

// An id from the refused body, only when it is one (a refused body may hold anything).
function idIn(body: unknown, field: string): string | null {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return isCanonicalUuid(value) ? value.toLowerCase() : null;
}

/**
 * The last {@link MAX_REFUSALS} refusals this node answered, in memory (a ring), newest first.
 * Recorded where the answer is made (the delivery and lifecycle routes), so a request forwarded
 * to the owner is listed once, by the node whose library refused it.
 */
@Injectable()
export class RefusalLog {
  private readonly ring: Refusal[] = [];
  private next = 0;

  /**
   * Lists `error` if it is one of {@link REFUSAL_CODES}; anything else is not a refusal here.
   * @param sessionId the session of the route (validated), @param body the request's parsed body
   */
  record(request: RefusedRequest, sessionId: string, body: unknown, error: unknown): void {
    if (!(error instanceof ProcessNotificationsError) || !(REFUSAL_CODES as readonly string[]).includes(error.code)) return;
    const refusal: Refusal = {
      at: new Date().toISOString(),
      code: error.code as RefusalCode,
      sessionId,
      loopId: idIn(body, 'loop_id'),
      commandId: request === 'completion' ? idIn(body, 'command_id') : null,
      eventId: request === 'lifecycle' ? idIn(body, 'event_id') : null,
      cause: error instanceof DeliveryStoppedError ? error.stopCause : null,
    };
    this.ring[this.next] = refusal;
    this.next = (this.next + 1) % MAX_REFUSALS;
  }

  /** At most `limit` refusals, newest first. */
  recent(limit: number): Refusal[] {
    const count = Math.min(limit, this.ring.length);
    return Array.from({ length: count }, (_, i) => this.ring[(this.next - 1 - i + MAX_REFUSALS) % MAX_REFUSALS]!);
  }
}
