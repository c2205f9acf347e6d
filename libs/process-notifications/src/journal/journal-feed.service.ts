import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { filter, interval, map, merge, Subject, type Observable } from 'rxjs';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../constants.js';
import { ANY_SESSION, JOURNAL_CHANNEL } from '../persistence/journal-commit-hint.js';
import { JournalWriter } from '../persistence/journal-writer.service.js';
import { SessionLeases } from '../persistence/session-leases.service.js';

// What the feed needs of a node-postgres client.
interface ListenClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
  release(error?: Error | boolean): void;
}

// While the LISTEN connection is down, readers re-read this often instead.
const POLL_MS = 1_000;
// A LISTEN connection that a network fault left silent shows it only when used.
const LISTEN_PING_MS = 5_000;

/**
 * Tells readers when a session's journal may have new records: on SQLite when this process
 * commits them; on PostgreSQL also when any node does (one LISTEN connection per node, one
 * NOTIFY per committed batch), with a poll every second while that connection is down and a
 * wake-up of every reader after it reconnects. A hint only: readers re-read the journal after
 * the last sequence they delivered, so a lost or repeated hint costs nothing.
 */
@Injectable()
export class JournalFeed implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(JournalFeed.name);
  private readonly hints = new Subject<string>();
  private client?: ListenClient;
  private listening = false;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource(PN_CONNECTION) private readonly dataSource: DataSource,
    private readonly writer: JournalWriter,
    private readonly leases: SessionLeases,
  ) {}

  /** Emits whenever records of the session may have been committed (by any node). */
  changes(sessionId: string): Observable<void> {
    const local = this.writer.records$.pipe(filter((record) => record.sessionId === sessionId));
    if (!this.leases.enabled) return local.pipe(map(() => undefined));
    const remote = this.hints.pipe(filter((sessions) => sessions === ANY_SESSION || sessions.split(',').includes(sessionId)));
    const fallback = interval(POLL_MS).pipe(filter(() => !this.listening));
    return merge(local, remote, fallback).pipe(map(() => undefined));
  }

  /**
   * Emits whenever records of one loop may have been committed: this node's commits of that loop's
   * records, and on PostgreSQL every hint for its session (hints name sessions, not loops).
   */
  loopChanges(sessionId: string, loopId: string): Observable<void> {
    const local = this.writer.records$.pipe(filter((record) => record.loopId === loopId && record.sessionId === sessionId));
    if (!this.leases.enabled) return local.pipe(map(() => undefined));
    const remote = this.hints.pipe(filter((sessions) => sessions === ANY_SESSION || sessions.split(',').includes(sessionId)));
    const fallback = interval(POLL_MS).pipe(filter(() => !this.listening));
    return merge(local, remote, fallback).pipe(map(() => undefined));
  }

  async onModuleInit(): Promise<void> {
    if (!this.leases.enabled) return;
    await this.listen().catch((error: unknown) => this.lostListener(error));
    this.pingTimer = setInterval(() => {
      if (this.listening) this.client?.query('SELECT 1').catch((error: unknown) => this.lostListener(error));
    }, LISTEN_PING_MS);
    this.pingTimer.unref();
  }

  private async listen(): Promise<void> {
    const pool = (this.dataSource.driver as unknown as { master: { connect(): Promise<ListenClient> } }).master;
    const client = await pool.connect();
    // The module stopped while this waited for a connection: keeping it would hold the pool open
    // and DataSource.destroy() would never return.
    if (this.closed) {
      client.release(true);
      return;
    }
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === JOURNAL_CHANNEL) this.hints.next(message.payload ?? ANY_SESSION);
    });
    client.on('error', (error) => this.lostListener(error));
    client.on('end', () => this.lostListener(new Error('the LISTEN connection ended')));
    await client.query(`LISTEN ${JOURNAL_CHANNEL}`);
    // Stopped meanwhile: onModuleDestroy has closed this client already.
    if (this.closed) return;
    this.listening = true;
    // Whatever was committed while not listening: every reader re-reads.
    this.hints.next(ANY_SESSION);
  }

  private lostListener(error: unknown): void {
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
    if (this.listening) this.logger.warn(`journal LISTEN connection lost, polling until it is back: ${(error as Error)?.message ?? error}`);
    this.listening = false;
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed) this.listen().catch((retryError: unknown) => this.lostListener(retryError));
    }, POLL_MS);
    this.reconnectTimer.unref();
  }

  onModuleDestroy(): void {
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
