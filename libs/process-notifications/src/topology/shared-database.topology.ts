import { merge, type Observable } from 'rxjs';
import { Topology, type TopologyWays } from './topology.js';

/** Several nodes share the database (PostgreSQL): each owns the sessions it holds the lease of. */
export class SharedDatabaseTopology extends Topology {
  readonly shared = true;

  withOtherNodes<T>(local: Observable<T>, others: () => Observable<T>): Observable<T> {
    return merge(local, others());
  }

  acrossNodes<T>(work: () => Promise<T>): Promise<T | undefined> {
    return work();
  }

  onOneNode<T>(): Promise<T | undefined> {
    return Promise.resolve(undefined);
  }

  holds(leased: () => boolean): boolean {
    return leased();
  }

  choose<T>(ways: TopologyWays<T>): T {
    return ways.sharedDatabase();
  }
}
