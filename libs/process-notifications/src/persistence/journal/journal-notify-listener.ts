import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Subject } from 'rxjs';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { ANY_SESSION, JOURNAL_CHANNEL } from './journal-commit-hint.js';
import { PostgresNodeStatements } from '../dialects/postgres-node-statements.js';
import { postgresPool } from '../dialects/store-connection.js';

// What the listener needs of a node-postgres client.
interface ListenClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
  release(error?: Error | boolean): void;
}

// A lost LISTEN connection is opened again after this long.
const RECONNECT_MS = 1_000;
// A LISTEN connection that a network fault left silent shows it only when used.
const LISTEN_PING_MS = 5_000;

/**
 * The PostgreSQL side of the commit hints (see `JournalCommitHint`, which sends them): one
 * `LISTEN` connection of this node's pool, pinged while it listens, opened again a second after
 * it is lost. Emits the payload of every hint (the sessions a commit touched, or
 * {@link ANY_SESSION}), and {@link ANY_SESSION} each time it starts listening, as whatever was
 * committed while it was not may be anyone's.
 */
@Injectable()
export class JournalNotifyListener {
  // Logged as the feed, whose readers poll while this is down: the operator's line unchanged.
  private readonly logger = new Logger('JournalFeed');
  private readonly hints = new Subject<string>();
  private readonly statements = new PostgresNodeStatements();
  private client?: ListenClient;
  private active = false;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;

  /** The hints' payloads: comma-separated session ids, or {@link ANY_SESSION}. */
  readonly hints$ = this.hints.asObservable();

  constructor(@InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource) {}

  /** True while the LISTEN connection is up (hints arrive); readers poll otherwise. */
  get listening(): boolean {
    return this.active;
  }

  /** Starts listening (on PostgreSQL only: call it there); a failure is retried, never thrown. */
  async start(): Promise<void> {
    await this.listen().catch((error: unknown) => this.lost(error));
    this.pingTimer = setInterval(() => {
      if (this.active) this.client?.query('SELECT 1').catch((error: unknown) => this.lost(error));
    }, LISTEN_PING_MS);
    this.pingTimer.unref();
  }

  private async listen(): Promise<void> {
    const client = await postgresPool<ListenClient>(this.dataSource).connect();
    // Stopped while this waited for a connection: keeping it would hold the pool open and
    // DataSource.destroy() would never return.
    if (this.closed) {
      client.release(true);
      return;
    }
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === JOURNAL_CHANNEL) this.hints.next(message.payload ?? ANY_SESSION);
    });
    client.on('error', (error) => this.lost(error));
    client.on('end', () => this.lost(new Error('the LISTEN connection ended')));
    await this.statements.listen(client, JOURNAL_CHANNEL);
    // Stopped meanwhile: stop() has closed this client already.
    if (this.closed) return;
    this.active = true;
    // Whatever was committed while not listening: every reader re-reads.
    this.hints.next(ANY_SESSION);
  }

  private lost(error: unknown): void {
    if (this.closed) return;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners();
      // A broken client may still report errors: heard, not thrown.
      client.on('error', () => undefined);
      // Destroyed, not returned to the pool: it may be broken.
      client.release(true);
    }
    if (this.active) this.logger.warn(`journal LISTEN connection lost, polling until it is back: ${(error as Error)?.message ?? error}`);
    this.active = false;
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed) this.listen().catch((retryError: unknown) => this.lost(retryError));
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  /** Stops listening for good and completes {@link hints$}. */
  stop(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    this.hints.complete();
    if (this.client) {
      this.client.removeAllListeners();
      this.client.on('error', () => undefined);
      this.client.release(true);
      this.client = undefined;
    }
  }
}
