import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Subject } from 'rxjs';
import { v4 as uuidv4 } from 'uuid';
import type { DataSource, EntityManager } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { SessionNotFoundError } from '../../errors/session-not-found.error.js';
import { DEFAULT_LEASE_TTL_MS, PROCESS_NOTIFICATIONS_OPTIONS } from '../../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../../process-notifications-options.interface.js';
import { PostgresNodeStatements, type StatementTarget } from '../dialects/postgres-node-statements.js';
import { postgresPool } from '../dialects/store-connection.js';
import { Topology } from '../../topology/topology.js';
import { topologyFor } from '../../topology/topology-for.js';
import { storeDialectOf } from '../dialects/store-dialects.js';

// What the heartbeat needs of a node-postgres pooled client.
interface PooledClient extends StatementTarget {
  on(event: 'error', listener: (error: Error) => void): void;
  release(destroy?: boolean): void;
}

/** Where a session's owner is, as the database says now (`self` even if this node's heartbeat lapsed). */
export type LeaseLocation =
  | { readonly owner: 'self'; readonly epoch: number }
  | { readonly owner: 'node'; readonly nodeId: string; readonly url: string; readonly retryAfterSeconds: number }
  | { readonly owner: 'none' };

// A steal waits for the old owner's last transaction (it holds the lease row FOR UPDATE); a
// frozen owner must not make the stealer wait longer than this.
const STEAL_LOCK_TIMEOUT = '2s';

/**
 * Session leases of this node on PostgreSQL (spec section 9). A lease row `(session, owner node,
 * epoch)` names a session's owner; it is valid while the owner node's heartbeat row has not
 * expired, so one UPDATE every TTL/3 renews all of a node's leases and SIGTERM releases them all
 * at once. Every takeover increases the epoch; journal transactions check owner and epoch with
 * {@link fence}. Expiry uses the database's clock. On one node (SQLite, see `Topology`) it runs
 * nothing and every session is this process's own.
 */
@Injectable()
export class SessionLeases implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionLeases.name);
  /** This process: a restarted process is a new node. */
  readonly nodeId = uuidv4();
  readonly ttlMs: number;
  private readonly statements = new PostgresNodeStatements();
  private url: string;

  /** The base URL other nodes reach this one at, once advertised ('' before). */
  get advertisedUrl(): string {
    return this.url;
  }
  // Sessions this node holds, with the epoch it acquired them at.
  private readonly held = new Map<string, number>();
  // Monotonic time until which this node's heartbeat row is known not to have expired.
  private aliveUntil = 0;
  private heartbeatTimer?: NodeJS.Timeout;
  private heartbeatClient?: Promise<PooledClient>;
  private released = false;
  private readonly lost = new Subject<string>();

  /** Sessions this node held and lost (taken over, or found fenced): their state is stale. */
  readonly lost$ = this.lost.asObservable();

  constructor(
    @InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource,
    @Optional() @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions = {},
    // The module's (one decision); a test that builds its own leases gets its data source's.
    private readonly topology: Topology = topologyFor(storeDialectOf(dataSource)),
  ) {
    this.ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isSafeInteger(this.ttlMs) || this.ttlMs < 1000) {
      throw new Error(`leaseTtlMs must be an integer of at least 1000, got ${String(options.leaseTtlMs)}`);
    }
    this.url = options.nodeUrl ?? '';
  }

  async onModuleInit(): Promise<void> {
    await this.topology.acrossNodes(() => this.startHeartbeat());
  }

  private async startHeartbeat(): Promise<void> {
    await this.heartbeat();
    this.heartbeatTimer = setInterval(
      () => {
        this.heartbeat().catch((error: unknown) => this.logger.warn(`lease heartbeat failed: ${(error as Error).message}`));
      },
      Math.floor(this.ttlMs / 3),
    );
    this.heartbeatTimer.unref();
  }

  /**
   * Sets the URL other nodes forward this node's sessions to (known once the server listens).
   * Another node registered at the same URL is a dead process this one replaces (this one now
   * listens there), so its sessions are released at once: a restart does not wait for the TTL.
   */
  async advertise(url: string): Promise<void> {
    this.url = url;
    await this.topology.acrossNodes(async () => {
      await this.heartbeat();
      await this.statements.retireOthersAt(this.dataSource, url, this.nodeId);
    });
  }

  /** The epoch this node holds the session at, while its heartbeat is known to be current. */
  epochOf(sessionId: string): number | undefined {
    return performance.now() < this.aliveUntil ? this.held.get(sessionId) : undefined;
  }

  /** The epoch recorded for the session, current heartbeat or not. */
  heldEpoch(sessionId: string): number | undefined {
    return this.held.get(sessionId);
  }

  hold(sessionId: string, epoch: number): void {
    this.held.set(sessionId, epoch);
  }

  /** Drops a session this node held at `epoch` (no-op if it holds another epoch by now). */
  lose(sessionId: string, epoch: number): void {
    if (this.held.get(sessionId) !== epoch) return;
    this.held.delete(sessionId);
    this.lost.next(sessionId);
  }

  /** Where the session's owner is; `SessionNotFoundError` when no such session exists. */
  async locate(sessionId: string): Promise<LeaseLocation> {
    const row = await this.statements.locate(this.dataSource, sessionId);
    if (!row) throw new SessionNotFoundError(sessionId);
    // This node's own lease, even lapsed: nobody took it over, so it is still this node's to renew.
    if (row.owner_node === this.nodeId) return { owner: 'self', epoch: Number(row.epoch) };
    if (!row.owner_node || !row.live) return { owner: 'none' };
    return { owner: 'node', nodeId: row.owner_node, url: row.url ?? '', retryAfterSeconds: row.remaining ?? 1 };
  }

  /**
   * Takes the session's lease if it has no live owner (or this node's lease lapsed), at a new
   * epoch; undefined when another live node holds it. Waits (at most {@link STEAL_LOCK_TIMEOUT})
   * for the old owner's last journal transaction, so the new owner's records follow all of its.
   */
  async acquire(sessionId: string): Promise<number | undefined> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await runner.connect();
      await this.statements.beginWaitingAtMost(runner, STEAL_LOCK_TIMEOUT);
      await this.renew(runner);
      const epoch = await this.statements.acquire(runner, sessionId, this.nodeId);
      await runner.query('COMMIT');
      return epoch;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release().catch(() => undefined);
    }
  }

  /**
   * Inside a journal transaction: the epoch at which this node still holds each of `sessionIds`
   * while it is alive (a session it does not hold is left out), in one statement for all of them
   * (issue 46: a batch of sixteen sessions' work costs one round trip, not sixteen). Takes the
   * lease rows FOR UPDATE, in session order (two transactions never wait on each other's rows
   * in opposite orders): a steal, and this node's next transaction for a session (on another
   * connection, after this one was given up), wait until this transaction has ended, so a
   * session's records commit in sequence order. The wait is bounded: the server ends a
   * transaction left idle (see `idle_in_transaction_session_timeout`) and a statement waits at
   * most `statement_timeout`.
   */
  fence(manager: EntityManager, sessionIds: readonly string[]): Promise<Map<string, number>> {
    return this.statements.fence(manager, sessionIds, this.nodeId);
  }

  /**
   * Renews this node's heartbeat (and with it every lease it holds), on a connection of its own:
   * behind a busy pool a late heartbeat would cost the node its sessions.
   */
  async heartbeat(): Promise<void> {
    if (this.released) return;
    const client = (this.heartbeatClient ??= this.connectHeartbeat());
    try {
      await this.renew(await client);
    } catch (error) {
      this.dropHeartbeatClient(client);
      throw error;
    }
  }

  private connectHeartbeat(): Promise<PooledClient> {
    const connecting: Promise<PooledClient> = postgresPool<PooledClient>(this.dataSource)
      .connect()
      .then((client) => {
        // A checked-out client that loses its connection reports it here, not to the pool.
        client.on('error', () => this.dropHeartbeatClient(connecting));
        return client;
      });
    return connecting;
  }

  // A broken connection is dropped (once); the next heartbeat takes a new one.
  private dropHeartbeatClient(client: Promise<PooledClient>): void {
    if (this.heartbeatClient !== client) return;
    this.heartbeatClient = undefined;
    void client.then((broken) => broken.release(true)).catch(() => undefined);
  }

  private async renew(db: StatementTarget): Promise<void> {
    if (this.released) throw new Error('this node has released its leases');
    const sent = performance.now();
    await this.statements.renew(db, this.nodeId, this.url, this.ttlMs);
    // Answered after the known deadline: the row may have expired before this renewal landed
    // (the node was frozen or cut off), and other nodes may have taken sessions over meanwhile.
    const late = performance.now() - this.aliveUntil;
    if (this.aliveUntil > 0 && late > 0) {
      this.logger.warn(`heartbeat ${Math.round(late)} ms past the lease TTL (${this.ttlMs} ms): re-reading the leases held`);
      // Before the deadline moves on (and epochOf trusts memory again), every session held is
      // checked against the database: one another node took over is dropped, and forwarded.
      // Not known: the deadline stays behind, so every request checks the lease in the database.
      if (
        !(await this.revalidate(db).then(
          () => true,
          (error: unknown) => {
            this.logger.warn(`re-reading the leases held failed: ${(error as Error).message}`);
            return false;
          },
        ))
      )
        return;
    }
    // The database's now() is no earlier than the moment the statement was sent.
    this.aliveUntil = Math.max(this.aliveUntil, sent + this.ttlMs);
  }

  /** Drops every held session whose lease row no longer names this node at the epoch held. */
  private async revalidate(db: StatementTarget): Promise<void> {
    const held = [...this.held];
    if (held.length === 0) return;
    const still = await this.statements.ownedEpochs(
      db,
      this.nodeId,
      held.map(([sessionId]) => sessionId),
    );
    for (const [sessionId, epoch] of held) {
      if (still.get(sessionId) !== epoch) this.lose(sessionId, epoch);
    }
  }

  /**
   * Releases every lease of this node at once (its heartbeat row expires now), so other nodes
   * take its sessions over without waiting for the TTL. Called at shutdown, after in-flight work.
   */
  async release(): Promise<void> {
    await this.topology.acrossNodes(() => this.releaseAll());
  }

  private async releaseAll(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.heartbeatTimer);
    void this.heartbeatClient?.then((client) => client.release()).catch(() => undefined);
    this.heartbeatClient = undefined;
    this.aliveUntil = 0;
    this.held.clear();
    try {
      await this.statements.expire(this.dataSource, this.nodeId);
    } catch (error) {
      this.logger.warn(`releasing the leases failed (they expire by themselves): ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.release();
  }
}
