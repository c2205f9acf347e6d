import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

/** The Fastify route config key that says whether a session route belongs to its owner. */
export const OWNER_ROUTED = 'ownerRouted';

/** Route config of a session route (see {@link OwnerRouted} and {@link AnyNode}). */
export interface OwnerRoutingConfig {
  readonly [OWNER_ROUTED]?: boolean;
}

/**
 * Several nodes (spec section 9): this route reads or changes what the session's owner holds
 * (loops, pending sets, deliveries, lifecycle records, the session itself), so a node that does
 * not own the session forwards the request to the owner. The route's `:sid` names the session.
 */
export const OwnerRouted = (): MethodDecorator => applyDecorators(RouteConfig({ [OWNER_ROUTED]: true }));

/** Several nodes: this session route is answered by whichever node receives it (from the database). */
export const AnyNode = (): MethodDecorator => applyDecorators(RouteConfig({ [OWNER_ROUTED]: false }));

/** True when the route's config (Fastify's `request.routeOptions.config`) declares it owner-routed. */
export function isOwnerRouted(config: unknown): boolean {
  return (config as OwnerRoutingConfig | undefined)?.[OWNER_ROUTED] === true;
}
