import type { EntityManager } from 'typeorm';
import type { JournalDraft, ProbeAppend } from '../journal/journal-draft.interface.js';
import type { StoreDialect } from '../dialects/store-dialect.js';

/** The probe's work, given its transaction's manager and the writer's append. */
export type ProbeWork = (manager: EntityManager, append: ProbeAppend) => Promise<unknown>;

// A largest notification, at the right edge of the table and of both indexes, where new records
// of new (time-ordered) sessions go.
const EDGE = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const PROBE_DRAFT: JournalDraft = {
  sessionId: EDGE,
  loopId: EDGE,
  kind: 'process_notification',
  idempotencyId: EDGE,
  causeCommandId: EDGE,
  payload: { command_id: EDGE, session_id: EDGE, loop_id: EDGE, process_handle: 'p'.repeat(128), state: 'exited', reason: 'exited' },
};

/**
 * What a health check runs in a transaction of the writer's. Normally nothing: BEGIN (on SQLite
 * `BEGIN IMMEDIATE`, which takes the write lock) and COMMIT are the test, and a statement between
 * them would prove nothing more. While the store is failing on SQLite it is a real append,
 * taken back in the same transaction (the row and its sequence number), so a full disk keeps the
 * service unhealthy until space is back, and the probe itself notices recovery when no other
 * write comes.
 */
export class JournalHealthProbe {
  // The probe queued and not yet begun, which checks arriving meanwhile share.
  private waiting?: Promise<boolean>;

  constructor(private readonly dialect: StoreDialect) {}

  /**
   * One health check: true when `enqueue` ran the probe's work in a transaction that committed.
   * Checks that arrive while a probe still waits for its transaction share it: each is still
   * answered by a transaction that began after it asked, and a burst of checks (a load
   * balancer's, /healthz under load) costs one queued job and one transaction, not one each.
   */
  check(failing: boolean, enqueue: (run: ProbeWork) => Promise<unknown>): Promise<boolean> {
    if (this.waiting) return this.waiting;
    const work = this.work(failing);
    const answer = enqueue((manager, append) => {
      // Its transaction has begun: a check from now on needs a probe of its own.
      if (this.waiting === answer) this.waiting = undefined;
      return work(manager, append);
    }).then(
      () => true,
      () => false,
    );
    this.waiting = answer;
    // Expired or refused before it ran: the next check must not wait on it.
    void answer.then(() => {
      if (this.waiting === answer) this.waiting = undefined;
    });
    return answer;
  }

  /** The probe's work, for a store that is `failing` or not. */
  work(failing: boolean): ProbeWork {
    // In process (SQLite), a full disk shows on a write only; a server's failure shows at BEGIN.
    return failing && this.dialect.inProcess ? (manager, append) => this.probeAppend(manager, append) : () => Promise.resolve();
  }

  private async probeAppend(manager: EntityManager, append: ProbeAppend): Promise<void> {
    const { written } = await append(manager, PROBE_DRAFT);
    await this.dialect.takeBackAppend(manager, written[0]!.sequence);
  }
}
