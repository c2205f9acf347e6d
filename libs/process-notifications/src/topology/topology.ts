import type { Observable } from 'rxjs';

/**
 * Single node or shared database (issue 49): chosen once, from the store's dialect, and injected,
 * so no service tests the database for it. On one node (SQLite) this process holds every session
 * in memory and nobody else writes; where several nodes share the database (PostgreSQL) a session
 * may be another node's, and what this node holds is the truth only while it holds the lease.
 */
export abstract class Topology {
  /** True when other nodes may share the database and own its sessions. */
  abstract readonly shared: boolean;

  /** `local` alone on one node; merged with `others()` (what tells of other nodes' commits) where several share the database. */
  abstract withOtherNodes<T>(local: Observable<T>, others: () => Observable<T>): Observable<T>;

  /** Runs `work` where other nodes may share the database (a read of what they wrote, the LISTEN connection); undefined on one node. */
  abstract acrossNodes<T>(work: () => Promise<T>): Promise<T | undefined>;

  /** Runs `work` on one node (what it does for every session at once); undefined where several share the database. */
  abstract onOneNode<T>(work: () => Promise<T>): Promise<T | undefined>;

  /** Whether this node's memory is the truth for a session: always on one node; with several, what `leased()` says. */
  abstract holds(leased: () => boolean): boolean;

  /**
   * What `ways` builds for this topology: `oneNode()` or `sharedDatabase()`, so that a part that
   * works one way or the other (the writer's fencing, its commit hint) is built that way once
   * rather than asking the database at each use.
   */
  abstract choose<T>(ways: TopologyWays<T>): T;
}

/** One thing built for each topology (see {@link Topology.choose}). */
export interface TopologyWays<T> {
  oneNode(): T;
  sharedDatabase(): T;
}
