import { Command } from '@nestjs/cqrs';

/**
 * Record the base URL at which other nodes reach this one (several nodes on PostgreSQL; see the
 * `nodeUrl` option). On one node there is no one to tell, and it writes nothing.
 * @param url the base URL, e.g. `http://10.0.0.5:3000`
 */
export class AdvertiseNodeUrlCommand extends Command<void> {
  constructor(readonly url: string) {
    super();
  }
}
