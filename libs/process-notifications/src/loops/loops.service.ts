import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { LoopRows } from '../persistence/sessions/loop-rows.js';
import type { Loop } from '../model/loop.interface.js';
import type { Session } from '../model/session.interface.js';
import { AlreadyExistsError } from '../errors/already-exists.error.js';
import { LoopLimitError } from '../errors/loop-limit.error.js';
import { LoopNotFoundError } from '../errors/loop-not-found.error.js';
import { ValidationError } from '../errors/validation.error.js';
import { JournalWriter } from '../persistence/journal/journal-writer.service.js';
import {
  DEFAULT_LOOP_CAPACITY,
  DEFAULT_MAX_LOOPS_PER_SESSION,
  PROCESS_NOTIFICATIONS_OPTIONS,
} from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { LOOP_ENGINES, type LoopEngine } from '../vocabulary/process-vocabulary.js';
import { ProcessLoop } from './process-loop.js';

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * The loop actors of this process: opened, stopped and persisted through the journal writer,
 * held here by session. Each actor owns its pending set (see {@link ProcessLoop}).
 */
@Injectable()
export class Loops {
  // By session, then by loop id: a session's loops are read without a scan of all loops.
  private readonly bySession = new Map<string, Map<string, ProcessLoop>>();
  private readonly rows = new LoopRows();
  private readonly capacity: number;
  private readonly maxLoopsPerSession: number;
  // Kept up to date by the loops themselves, so reading it never scans them.
  private pendingTotal = 0;

  constructor(
    private readonly writer: JournalWriter,
    @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions,
  ) {
    this.capacity = positiveInteger(options.loopCapacity ?? DEFAULT_LOOP_CAPACITY, 'loopCapacity');
    this.maxLoopsPerSession = positiveInteger(options.maxLoopsPerSession ?? DEFAULT_MAX_LOOPS_PER_SESSION, 'maxLoopsPerSession');
  }

  /** Opens a loop in a session the caller has looked up (see `SessionOwnership.own`). */
  async open({ sessionId }: Session, requestedLoopId: string = uuidv7(), engine: LoopEngine = 'native'): Promise<ProcessLoop> {
    const loopId = requireCanonicalUuid(requestedLoopId, 'loop_id');
    if (!LOOP_ENGINES.includes(engine)) throw new ValidationError('engine', 'engine must be "native" or "foreign"');
    const opened = await this.writer.write(async (store) => {
      if (await this.rows.exists(store, sessionId, loopId)) throw new AlreadyExistsError('loop', loopId);
      // Counted in the serialized transaction, so concurrent calls cannot overshoot together.
      if ((await this.rows.count(store, sessionId)) >= this.maxLoopsPerSession) {
        throw new LoopLimitError(sessionId, this.maxLoopsPerSession);
      }
      return this.rows.insert(store, sessionId, loopId, engine, new Date().toISOString());
    }, sessionId);
    return this.add(opened);
  }

  /**
   * The loop of a session the caller has looked up (see `SessionOwnership.own`), or
   * `LoopNotFoundError`. The loop id as normalised where it entered the library (see `normaliseId`).
   */
  require({ sessionId }: Session, loopId: string): ProcessLoop {
    const loop = this.find(sessionId, loopId);
    if (!loop) throw new LoopNotFoundError(sessionId, loopId);
    return loop;
  }

  /** The loop with exactly these (lower-case) ids, if this process has it. */
  find(sessionId: string, loopId: string): ProcessLoop | undefined {
    return this.bySession.get(sessionId)?.get(loopId);
  }

  ofSession(sessionId: string): ProcessLoop[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])];
  }

  /** Notifications pending in all loops of this process. */
  get pendingCount(): number {
    return this.pendingTotal;
  }

  /**
   * Stops a loop durably; later deliveries answer `stopped` (`loop_stopped`). What the loop holds
   * stays pending (and consumable); a `loop_stopped` journal record lists it, so a restart
   * restores exactly that and every answer stays what it was before the restart.
   */
  async stop(session: Session, loopId: string): Promise<ProcessLoop> {
    const loop = this.require(session, loopId);
    if (loop.state === 'stopped') return loop;
    let stoppedHere = false;
    try {
      await this.writer.write(async (store, journal) => {
        // The writer may run this twice (alone after a failed batch); a concurrent stop wins.
        if (!stoppedHere && loop.state === 'stopped') return;
        // From here on the loop takes nothing more, so the record lists exactly what it holds.
        loop.stop();
        stoppedHere = true;
        await this.rows.stop(store, loop.sessionId, loop.loopId);
        await journal.append({
          sessionId: loop.sessionId,
          loopId: loop.loopId,
          kind: 'loop_stopped',
          idempotencyId: `stopped:${loop.loopId}`,
          payload: { loop_id: loop.loopId, pending: loop.list().map((notification) => notification.commandId) },
        });
      }, loop.sessionId);
    } catch (error) {
      if (stoppedHere) loop.undoStop();
      throw error;
    }
    return loop;
  }

  /** Replaces the actors with the persisted loops, pending sets empty (restore at start). */
  load(loops: readonly Loop[]): void {
    for (const sessionId of [...this.bySession.keys()]) this.unloadSession(sessionId);
    this.pendingTotal = 0;
    for (const persisted of loops) this.add(persisted);
  }

  /** Replaces one session's actors with its persisted loops, pending sets empty (takeover). */
  loadSession(sessionId: string, loops: readonly Loop[]): void {
    this.unloadSession(sessionId);
    for (const persisted of loops) this.add(persisted);
  }

  /** Forgets one session's actors (another node owns the session now). */
  unloadSession(sessionId: string): void {
    for (const loop of this.bySession.get(sessionId)?.values() ?? []) {
      this.pendingTotal -= loop.size;
      loop.detach();
    }
    this.bySession.delete(sessionId);
  }

  private add(persisted: Loop): ProcessLoop {
    // A loop unloaded at a takeover is detached: it no longer counts here.
    const loop = new ProcessLoop(persisted.sessionId, persisted.loopId, persisted.engine, persisted.state, this.capacity, (delta) => {
      this.pendingTotal += delta;
    });
    let ofSession = this.bySession.get(persisted.sessionId);
    if (!ofSession) this.bySession.set(persisted.sessionId, (ofSession = new Map()));
    ofSession.set(persisted.loopId, loop);
    return loop;
  }
}
