import type { Observable } from 'rxjs';
import { Topology, type TopologyWays } from './topology.js';

/** One process owns the database (SQLite): its memory holds every session, and nobody else writes. */
export class SingleNodeTopology extends Topology {
  readonly shared = false;

  withOtherNodes<T>(local: Observable<T>): Observable<T> {
    return local;
  }

  acrossNodes<T>(): Promise<T | undefined> {
    return Promise.resolve(undefined);
  }

  onOneNode<T>(work: () => Promise<T>): Promise<T | undefined> {
    return work();
  }

  holds(): boolean {
    return true;
  }

  choose<T>(ways: TopologyWays<T>): T {
    return ways.oneNode();
  }
}
