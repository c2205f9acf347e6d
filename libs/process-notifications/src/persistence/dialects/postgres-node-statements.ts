/** What runs a statement: a data source, a transaction's manager or runner, a pooled client. */
export interface StatementTarget {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** A session's lease row, its owner's heartbeat row, as `locate` reads them. */
export interface LeaseRow {
  readonly owner_node: string | null;
  readonly epoch: string | null;
  readonly url: string | null;
  readonly live: boolean | null;
  readonly remaining: number | null;
}

/** A node's heartbeat row, as the admin's node list reads it. */
export interface NodeRow {
  readonly node_id: string;
  readonly url: string;
  readonly live: boolean;
  readonly heartbeat_at: Date | null;
  readonly sessions: string | number;
}

// session id → epoch, of lease rows read.
function epochsOf(rows: unknown): Map<string, number> {
  return new Map((rows as Array<{ session_id: string; epoch: string }>).map((row) => [row.session_id, Number(row.epoch)]));
}

/**
 * The statements of several nodes sharing a PostgreSQL database (spec section 9), which SQLite
 * (one process) never runs: the nodes' heartbeat rows, the session leases, their fence, the
 * cluster's node list and the LISTEN of the commit hints. Expiry is the database's clock
 * (`now()`), never a node's. Stateless: the callers hold the node id, its URL and its TTL.
 */
export class PostgresNodeStatements {
  /** Expires now every other node's live heartbeat row at `url` (a dead process `nodeId` replaces). */
  async retireOthersAt(db: StatementTarget, url: string, nodeId: string): Promise<void> {
    await db.query(`UPDATE pn_nodes SET expires_at = now() - interval '1 second' WHERE url = $1 AND node_id <> $2 AND expires_at > now()`, [
      url,
      nodeId,
    ]);
  }

  /** The lease of an existing session and its owner's heartbeat (`remaining`: whole seconds, at least 1); undefined without the session. */
  async locate(db: StatementTarget, sessionId: string): Promise<LeaseRow | undefined> {
    const [row] = (await db.query(
      `SELECT l.owner_node, l.epoch, n.url, n.expires_at > now() AS live,
         GREATEST(1, CEIL(EXTRACT(EPOCH FROM (n.expires_at - now()))))::int AS remaining
       FROM pn_sessions s
       LEFT JOIN pn_session_leases l ON l.session_id = s.session_id
       LEFT JOIN pn_nodes n ON n.node_id = l.owner_node
       WHERE s.session_id = $1`,
      [sessionId],
    )) as LeaseRow[];
    return row;
  }

  /** Opens a transaction whose lock waits end after `lockTimeout` (a PostgreSQL duration: '2s'). */
  async beginWaitingAtMost(db: StatementTarget, lockTimeout: string): Promise<void> {
    await db.query('BEGIN');
    await db.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
  }

  /**
   * Takes the session's lease for `nodeId` if it has no live owner (or `nodeId` owns it already),
   * at a new epoch; undefined when another live node holds it.
   */
  async acquire(db: StatementTarget, sessionId: string, nodeId: string): Promise<number | undefined> {
    const rows = (await db.query(
      `INSERT INTO pn_session_leases (session_id, owner_node, epoch) VALUES ($1, $2, 1)
       ON CONFLICT (session_id) DO UPDATE SET owner_node = EXCLUDED.owner_node, epoch = pn_session_leases.epoch + 1
       WHERE pn_session_leases.owner_node = EXCLUDED.owner_node OR NOT EXISTS (
         SELECT 1 FROM pn_nodes n WHERE n.node_id = pn_session_leases.owner_node AND n.expires_at > now())
       RETURNING epoch`,
      [sessionId, nodeId],
    )) as Array<{ epoch: string }>;
    return rows[0] ? Number(rows[0].epoch) : undefined;
  }

  /**
   * The epoch at which live `nodeId` holds each of `sessionIds` (one it does not hold left out), in
   * one statement; their lease rows taken FOR UPDATE, in session order, until the transaction ends.
   */
  async fence(db: StatementTarget, sessionIds: readonly string[], nodeId: string): Promise<Map<string, number>> {
    return epochsOf(
      await db.query(
        `SELECT l.session_id, l.epoch FROM pn_session_leases l JOIN pn_nodes n ON n.node_id = l.owner_node
         WHERE l.session_id = ANY($1::text[]) AND l.owner_node = $2 AND n.expires_at > now()
         ORDER BY l.session_id FOR UPDATE OF l`,
        [sessionIds, nodeId],
      ),
    );
  }

  /** Writes `nodeId`'s heartbeat row: at `url`, expiring `ttlMs` from the database's now. */
  async renew(db: StatementTarget, nodeId: string, url: string, ttlMs: number): Promise<void> {
    await db.query(
      `INSERT INTO pn_nodes (node_id, url, expires_at, heartbeat_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond', now())
       ON CONFLICT (node_id) DO UPDATE SET url = EXCLUDED.url, expires_at = EXCLUDED.expires_at, heartbeat_at = EXCLUDED.heartbeat_at`,
      [nodeId, url, ttlMs],
    );
  }

  /** The epochs of the lease rows of `sessionIds` that name `nodeId`, live or not. */
  async ownedEpochs(db: StatementTarget, nodeId: string, sessionIds: readonly string[]): Promise<Map<string, number>> {
    return epochsOf(
      await db.query(`SELECT session_id, epoch FROM pn_session_leases WHERE owner_node = $1 AND session_id = ANY($2)`, [
        nodeId,
        sessionIds,
      ]),
    );
  }

  /** Expires `nodeId`'s heartbeat row now: every lease it holds is free. */
  async expire(db: StatementTarget, nodeId: string): Promise<void> {
    await db.query(`UPDATE pn_nodes SET expires_at = now() - interval '1 second' WHERE node_id = $1`, [nodeId]);
  }

  /**
   * Every node whose heartbeat row is live, names a lease, or expired within the last day, live
   * ones first; of the rows with one URL only the newest.
   */
  async nodes(db: StatementTarget): Promise<NodeRow[]> {
    return (await db.query(
      `SELECT n.node_id, n.url, n.expires_at > now() AS live, n.heartbeat_at,
        (SELECT COUNT(*) FROM pn_session_leases l WHERE l.owner_node = n.node_id) AS sessions
      FROM pn_nodes n
      WHERE (n.expires_at > now() - interval '1 day' OR EXISTS (SELECT 1 FROM pn_session_leases l WHERE l.owner_node = n.node_id))
        AND NOT EXISTS (SELECT 1 FROM pn_nodes m WHERE m.url = n.url AND m.heartbeat_at > n.heartbeat_at)
      ORDER BY live DESC, n.heartbeat_at DESC NULLS LAST, n.url`,
    )) as NodeRow[];
  }

  /** Starts hearing the notifications of `channel` on `client`'s connection (an identifier, not quoted). */
  async listen(client: StatementTarget, channel: string): Promise<void> {
    await client.query(`LISTEN ${channel}`);
  }
}
