import { Command } from '@nestjs/cqrs';

/**
 * Release this node's sessions at once, so other nodes take them over without waiting for the
 * lease TTL; this node then answers `OwnerUnavailableError` for them (several nodes on
 * PostgreSQL; on one node it writes nothing).
 */
export class ReleaseSessionsCommand extends Command<void> {}
