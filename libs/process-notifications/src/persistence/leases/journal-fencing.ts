import type { EntityManager } from 'typeorm';
import type { SessionLeases } from './session-leases.service.js';
import { OwnerUnavailableError } from '../../errors/owner-unavailable.error.js';
import type { Topology } from '../../topology/topology.js';

/** The session whose lease a job's transaction must still hold, at the epoch it was queued with. */
export interface Fence {
  readonly sessionId: string;
  readonly epoch: number;
}

/**
 * Lease fencing of journal writes (PostgreSQL, spec section 9): a unit of work for a session is
 * queued with the epoch this node holds the session at, and commits only if its transaction still
 * finds that lease; a job found fenced is refused alone and the session forgotten. Off on one
 * node (SQLite), as its topology says once, at construction.
 */
export class JournalFencing {
  private readonly fenceOf: (sessionId: string) => Fence | undefined;

  constructor(
    private readonly leases: SessionLeases,
    topology: Topology,
  ) {
    this.fenceOf = topology.choose<(sessionId: string) => Fence | undefined>({
      oneNode: () => () => undefined,
      sharedDatabase: () => (sessionId) => this.leaseFence(sessionId),
    });
  }

  /**
   * The fence of a unit of work about to be queued for `sessionId` (none without a session or
   * on one node); `OwnerUnavailableError` when this node does not hold the session.
   */
  fenceFor(sessionId: string | undefined): Fence | undefined {
    return sessionId === undefined ? undefined : this.fenceOf(sessionId);
  }

  private leaseFence(sessionId: string): Fence {
    // The epoch the caller's view of the session comes from: a later owner's epoch won't do.
    const epoch = this.leases.heldEpoch(sessionId);
    if (epoch === undefined) throw new OwnerUnavailableError(sessionId, 1, 'this node does not hold its lease');
    return { sessionId, epoch };
  }

  /**
   * A check for one transaction: true while it holds the fence's lease. `fences` are all the
   * fences it will be asked about (its batch's): the first question asks the leases of all their
   * sessions in one statement (not one per session); the lease rows are then held FOR UPDATE
   * until COMMIT, so the answers cannot change and each session's next transaction waits for
   * this one. A fence not among `fences` is asked on its own.
   */
  inTransaction(manager: EntityManager, fences: readonly Fence[]): (fence: Fence) => Promise<boolean> {
    let held: Promise<Map<string, number>> | undefined;
    const asked = new Set(fences.map((fence) => fence.sessionId));
    const alone = new Map<string, Promise<Map<string, number>>>();
    return async (fence) => {
      if (!asked.has(fence.sessionId)) {
        let own = alone.get(fence.sessionId);
        if (!own) alone.set(fence.sessionId, (own = this.leases.fence(manager, [fence.sessionId])));
        return (await own).get(fence.sessionId) === fence.epoch;
      }
      held ??= this.leases.fence(manager, [...asked]);
      return (await held).get(fence.sessionId) === fence.epoch;
    };
  }

  /** The refusal of a job whose fence did not hold. */
  refusal(fence: Fence): OwnerUnavailableError {
    return new OwnerUnavailableError(fence.sessionId, 1, 'this node lost its lease');
  }

  /** After COMMIT: this node's view of a fenced session is stale; drop it (the next request re-acquires). */
  forget(fence: Fence): void {
    this.leases.lose(fence.sessionId, fence.epoch);
  }
}
