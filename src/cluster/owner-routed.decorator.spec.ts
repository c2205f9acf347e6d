import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { serverConfigFromEnv } from '../config/server-config.js';
import { AppModule } from '../app.module.js';
import { OWNER_ROUTED } from './owner-routed.decorator.js';

interface DeclaredRoute {
  readonly route: string;
  readonly ownerRouted: unknown;
}

const join = (...parts: string[]): string =>
  `/${parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** Every route of the server's controllers, `METHOD /path`, with its owner-routing declaration. */
function declaredRoutes(): DeclaredRoute[] {
  const { controllers = [] } = AppModule.forRoot(serverConfigFromEnv({}), undefined as never);
  return (controllers as Type[]).flatMap((controller) => {
    const prefix = Reflect.getMetadata(PATH_METADATA, controller) as string;
    return Object.getOwnPropertyNames(controller.prototype).flatMap((name) => {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (name === 'constructor' || path === undefined) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown> | undefined;
      return [{ route: `${method} ${join(prefix, path)}`, ownerRouted: config?.[OWNER_ROUTED] }];
    });
  });
}

// Spec section 9: what a session's owner answers (delivery, lifecycle, consume, stop, loop and
// session reads), and what any node serves from the database (journal pages, event streams).
describe('owner routing is declared beside every session route', () => {
  const sessionRoutes = declaredRoutes().filter(({ route }) => / \/v1\/sessions\/:sid(?:\/|$)/.test(route));

  it('declares every route under /v1/sessions/:sid one way or the other', () => {
    expect(sessionRoutes.length).toBeGreaterThanOrEqual(10);
    expect(sessionRoutes.filter(({ ownerRouted }) => typeof ownerRouted !== 'boolean')).toEqual([]);
  });

  it('forwards exactly the routes section 9 gives the owner', () => {
    const forwarded = sessionRoutes.filter(({ ownerRouted }) => ownerRouted === true).map(({ route }) => route);
    expect(forwarded.sort()).toEqual(
      [
        'GET /v1/sessions/:sid',
        // Rotation and closing write the session's row: its owner is its only writer.
        'POST /v1/sessions/:sid/token',
        'POST /v1/sessions/:sid/close',
        'POST /v1/sessions/:sid/loops',
        'GET /v1/sessions/:sid/loops/:lid',
        'POST /v1/sessions/:sid/loops/:lid/stop',
        'POST /v1/sessions/:sid/process-completions',
        'POST /v1/sessions/:sid/process-completions/batch',
        'POST /v1/sessions/:sid/process-lifecycle',
        'GET /v1/sessions/:sid/loops/:lid/process-notifications',
        'POST /v1/sessions/:sid/loops/:lid/process-notifications/:command_id/consume',
        'POST /v1/sessions/:sid/loops/:lid/process-notifications/consume',
      ].sort(),
    );
    expect(sessionRoutes.filter(({ ownerRouted }) => ownerRouted === false).map(({ route }) => route)).toEqual(
      expect.arrayContaining(['GET /v1/sessions/:sid/journal', 'GET /v1/sessions/:sid/events']),
    );
  });

  it('declares no route outside a session as owner-routed (there is no session to find the owner of)', () => {
    const outside = declaredRoutes().filter(({ route }) => !/ \/v1\/sessions\/:sid(?:\/|$)/.test(route));
    expect(outside.filter(({ ownerRouted }) => ownerRouted === true)).toEqual([]);
  });
});
