/** Options of {@link ProcessNotificationsModule}. */
export interface ProcessNotificationsModuleOptions {
  /**
   * Where the journal lives: `sqlite:<path>`, `sqlite::memory:` or `postgres://...`.
   * Only a file or server database survives a restart.
   * @default 'sqlite:./data/process-notifications.db'
   */
  databaseUrl?: string;
  /**
   * Capacity of each loop's pending set; a full set answers `stopped` (`inbox_full`).
   * @default 64
   */
  loopCapacity?: number;
  /**
   * Deadline of one unit of journal work, from the call to its answer: a database that does not
   * answer in time (stalled, partitioned, locked) fails the call with `JournalUnavailableError`.
   * @default 5000
   */
  journalTimeoutMs?: number;
  /**
   * Most loops one session may open; one more is refused with `LoopLimitError`.
   * @default 1000
   */
  maxLoopsPerSession?: number;
  /**
   * Days after which the payloads of consumed notifications and of lifecycle records are dropped
   * (shown as `null`). Sequence, kind, idempotency id and fingerprint stay forever, so a late
   * identical retry still answers duplicate and a different payload still answers collision.
   * Pending notifications are never pruned.
   * @default 30
   */
  retentionDays?: number;
  /**
   * PostgreSQL only: how long this node's ownership of a session lasts without renewal (it is
   * renewed every third of it). Several nodes may share one database; each session is owned by
   * one live node at a time (spec section 9). At least 1000.
   * @default 10000
   */
  leaseTtlMs?: number;
  /**
   * PostgreSQL only: the base URL at which other nodes reach this one, for them to forward
   * requests of sessions this node owns. A server sets it once it listens
   * (`ProcessNotificationsService.advertiseNodeUrl`).
   */
  nodeUrl?: string;
  /**
   * PostgreSQL only: how many sessions that this node does not own it keeps in memory after
   * reading them from the database, for the routes any node answers (journal reads, forwarding to
   * the owner). The least recently used is dropped first and read again when needed. Their tokens
   * are not kept: read at every use, so a rotation or a close on the owner counts here at once. The sessions a node owns are always in memory, as is every session on
   * SQLite: their loops and pending sets are the service's state, not a cache.
   * @default 10000
   */
  sessionCacheSize?: number;
  /**
   * Key of the HMAC that seals the admin lists' cursors, so that a cursor edited and encoded again
   * is refused (`ValidationError`, field `cursor`). Nodes that share one database must share it:
   * a client may pass a cursor one node gave out to another. The server derives it from its admin
   * token.
   * @default a random key of this process's own
   */
  cursorSecret?: string;
}
