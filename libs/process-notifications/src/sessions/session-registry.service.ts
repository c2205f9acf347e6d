import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ReplaySubject } from 'rxjs';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { AlreadyExistsError } from '../errors/already-exists.error.js';
import { LoopLimitError } from '../errors/loop-limit.error.js';
import { LoopNotFoundError } from '../errors/loop-not-found.error.js';
import { SessionNotFoundError } from '../errors/session-not-found.error.js';
import { ValidationError } from '../errors/validation.error.js';
import { requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { DEFAULT_LOOP_CAPACITY, DEFAULT_MAX_LOOPS_PER_SESSION, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { LOOP_ENGINES, LoopEntity, type LoopEngine } from './loop.entity.js';
import { pendingFromPayload } from './pending-from-payload.js';
import { ProcessLoop } from './process-loop.js';
import { SessionEntity } from './session.entity.js';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Ids arrive from embedding code as well as from validated DTOs: any case, maybe not a string.
function idOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new ValidationError(field, `${field} must be a string`);
  return value.toLowerCase();
}

// Journaled notifications without a consumed record, in journal order (uses ix_pn_journal_cause).
const PENDING_NOTIFICATIONS = `
  SELECT j.sequence, j.session_id, j.loop_id, j.payload FROM pn_journal j
  WHERE j.kind = 'process_notification' AND NOT EXISTS (
    SELECT 1 FROM pn_journal c
    WHERE c.session_id = j.session_id AND c.cause_command_id = j.idempotency_id AND c.kind = 'process_notification_consumed'
  )
  ORDER BY j.sequence`;

const LOOP_STOPS = `SELECT session_id, loop_id, payload FROM pn_journal WHERE kind = 'loop_stopped'`;

function loopKey(sessionId: string, loopId: string): string {
  return `${sessionId}/${loopId}`;
}

/**
 * Sessions and their loop actors. Persisted through the journal writer; at module start the
 * loops are rebuilt and every running native loop's pending set is restored from the journal.
 */
@Injectable()
export class SessionRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly sessions = new Map<string, SessionEntity>();
  private readonly tokens = new Map<string, string>();
  // Loops by session, then by loop id: a session's loops are read without a scan of all loops.
  private readonly loops = new Map<string, Map<string, ProcessLoop>>();
  private readonly capacity: number;
  private readonly maxLoopsPerSession: number;

  constructor(
    private readonly writer: JournalWriter,
    @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions,
  ) {
    this.capacity = options.loopCapacity ?? DEFAULT_LOOP_CAPACITY;
    if (!Number.isSafeInteger(this.capacity) || this.capacity < 1) {
      throw new Error(`loopCapacity must be a positive integer, got ${String(options.loopCapacity)}`);
    }
    this.maxLoopsPerSession = options.maxLoopsPerSession ?? DEFAULT_MAX_LOOPS_PER_SESSION;
    if (!Number.isSafeInteger(this.maxLoopsPerSession) || this.maxLoopsPerSession < 1) {
      throw new Error(`maxLoopsPerSession must be a positive integer, got ${String(options.maxLoopsPerSession)}`);
    }
  }

  private readonly stopping = new ReplaySubject<void>(1);

  /** Emits once the module is being destroyed: this process's loops take nothing more. */
  readonly shutdown$ = this.stopping.asObservable();

  async onModuleInit(): Promise<void> {
    await this.restore();
  }

  onModuleDestroy(): void {
    this.stopping.next();
    this.stopping.complete();
  }

  /** Opens a session (time-ordered UUIDv7 id by default) with its bearer token, never stored in clear. */
  async openSession(requestedId: string = uuidv7()): Promise<{ session: SessionEntity; token: string }> {
    const sessionId = requireCanonicalUuid(requestedId, 'session_id');
    const token = randomBytes(32).toString('base64url');
    const session = await this.writer.write(async (manager) => {
      if (await manager.existsBy(SessionEntity, { sessionId })) throw new AlreadyExistsError('session', sessionId);
      const entity = manager.create(SessionEntity, {
        sessionId,
        tokenHash: hashToken(token),
        createdAt: new Date().toISOString(),
      });
      await manager.insert(SessionEntity, entity);
      return entity;
    });
    this.addSession(session);
    return { session, token };
  }

  requireSession(sessionId: string): SessionEntity {
    const session = this.sessions.get(idOf(sessionId, 'session_id'));
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /**
   * The session a bearer token opens, or undefined. Tokens are looked up by their SHA-256: the
   * lookup's timing depends only on the hash, which an attacker cannot steer byte by byte, so
   * it leaks nothing usable about a stored token (no plain-text comparison ever happens).
   */
  authenticate(token: string): string | undefined {
    return this.tokens.get(hashToken(token));
  }

  async openLoop(requestedSessionId: string, requestedLoopId: string = uuidv7(), engine: LoopEngine = 'native'): Promise<ProcessLoop> {
    const { sessionId } = this.requireSession(requestedSessionId);
    const loopId = requireCanonicalUuid(requestedLoopId, 'loop_id');
    if (!LOOP_ENGINES.includes(engine)) throw new ValidationError('engine', 'engine must be "native" or "foreign"');
    const entity = await this.writer.write(async (manager) => {
      if (await manager.existsBy(LoopEntity, { sessionId, loopId })) throw new AlreadyExistsError('loop', loopId);
      // Counted in the serialized transaction, so concurrent calls cannot overshoot together.
      if ((await manager.countBy(LoopEntity, { sessionId })) >= this.maxLoopsPerSession) {
        throw new LoopLimitError(sessionId, this.maxLoopsPerSession);
      }
      const row = manager.create(LoopEntity, { sessionId, loopId, engine, state: 'running', createdAt: new Date().toISOString() });
      await manager.insert(LoopEntity, row);
      return row;
    });
    return this.addLoop(entity);
  }

  getLoop(sessionId: string, loopId: string): ProcessLoop | undefined {
    return this.loops.get(sessionId)?.get(loopId);
  }

  requireLoop(requestedSessionId: string, requestedLoopId: string): ProcessLoop {
    const { sessionId } = this.requireSession(requestedSessionId);
    const loopId = idOf(requestedLoopId, 'loop_id');
    const loop = this.getLoop(sessionId, loopId);
    if (!loop) throw new LoopNotFoundError(sessionId, loopId);
    return loop;
  }

  loopsOf(sessionId: string): ProcessLoop[] {
    return [...(this.loops.get(sessionId)?.values() ?? [])];
  }

  /**
   * Stops a loop durably; later deliveries answer `stopped` (`loop_stopped`). What the loop holds
   * stays pending (and consumable); a `loop_stopped` journal record lists it, so a restart
   * restores exactly that and every answer stays what it was before the restart.
   */
  async stopLoop(sessionId: string, loopId: string): Promise<ProcessLoop> {
    const loop = this.requireLoop(sessionId, loopId);
    if (loop.state === 'stopped') return loop;
    let stoppedHere = false;
    try {
      await this.writer.write(async (manager, journal) => {
        // The writer may run this twice (alone after a failed batch); a concurrent stop wins.
        if (!stoppedHere && loop.state === 'stopped') return;
        // From here on the loop takes nothing more, so the record lists exactly what it holds.
        loop.stop();
        stoppedHere = true;
        await manager.update(LoopEntity, { sessionId: loop.sessionId, loopId: loop.loopId }, { state: 'stopped' });
        await journal.append({
          sessionId: loop.sessionId,
          loopId: loop.loopId,
          kind: 'loop_stopped',
          idempotencyId: `stopped:${loop.loopId}`,
          payload: { loop_id: loop.loopId, pending: loop.list().map((notification) => notification.commandId) },
        });
      });
    } catch (error) {
      if (stoppedHere) loop.undoStop();
      throw error;
    }
    return loop;
  }

  private addSession(session: SessionEntity): void {
    this.sessions.set(session.sessionId, session);
    if (session.tokenHash) this.tokens.set(session.tokenHash, session.sessionId);
  }

  private addLoop(entity: LoopEntity): ProcessLoop {
    const loop = new ProcessLoop(entity.sessionId, entity.loopId, entity.engine, entity.state, this.capacity);
    let ofSession = this.loops.get(entity.sessionId);
    if (!ofSession) this.loops.set(entity.sessionId, (ofSession = new Map()));
    ofSession.set(entity.loopId, loop);
    return loop;
  }

  /**
   * Rebuilds sessions, loops and pending sets: every notification journaled for a native
   * loop, in journal order, minus those with a consumed record. Restored notifications
   * bypass dispatch and capacity, so nothing journaled is dropped.
   */
  private async restore(): Promise<void> {
    const { sessions, loops, pending, stops } = await this.writer.read(async (manager) => ({
      sessions: await manager.find(SessionEntity),
      loops: await manager.find(LoopEntity),
      // Only what is still pending: the cost follows the pending sets, not the whole history.
      pending: (await manager.query(PENDING_NOTIFICATIONS)) as Array<{ sequence: number | string; session_id: string; loop_id: string; payload: string }>,
      stops: (await manager.query(LOOP_STOPS)) as Array<{ session_id: string; loop_id: string; payload: string }>,
    }));
    // What each stopped loop held when it stopped; a loop stopped by an older version without
    // such a record restores nothing (spec section 5 rebuilds running loops only).
    const heldAtStop = new Map<string, Set<string>>();
    for (const stop of stops) {
      heldAtStop.set(loopKey(stop.session_id, stop.loop_id), new Set((JSON.parse(stop.payload) as { pending: string[] }).pending));
    }
    this.sessions.clear();
    this.tokens.clear();
    this.loops.clear();
    for (const session of sessions) this.addSession(session);
    for (const entity of loops) this.addLoop(entity);
    for (const record of pending) {
      const loop = this.getLoop(record.session_id, record.loop_id);
      if (!loop || loop.engine !== 'native') continue;
      const notification = pendingFromPayload(JSON.parse(record.payload) as Record<string, unknown>, Number(record.sequence));
      // A stopped loop keeps what it held when it stopped, never what it refused after.
      if (loop.state === 'stopped' && !heldAtStop.get(loopKey(loop.sessionId, loop.loopId))?.has(notification.commandId)) continue;
      loop.restore(notification);
    }
  }
}
