import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { ServerConfig } from '../config/server-config.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { AdminOnly } from './admin-only.decorator.js';
import { HttpProblemError } from './http-problem.error.js';
import { AnyToken } from './principal.js';
import { Public } from './public.decorator.js';

const SESSION = '0b0e7c1e-3c1d-4c4e-9a43-5a2d8f1e6b70';
const SESSION_TOKEN = 'a-session-token';

class SomeController {
  someRoute(): void {}
}

// A handler inherited by two controllers, only one of which is public.
class BaseController {
  inherited(): void {}
}
@Public()
class OpenController extends BaseController {}
class ClosedController extends BaseController {}

class MarkedController {
  @AdminOnly()
  adminRoute(): void {}

  @AnyToken()
  anyTokenRoute(): void {}
}

// A request as Fastify hands it to guards: `params` is always an object, empty on a route
// without path parameters.
function contextFor(
  params: Record<string, string>,
  authorization: string | undefined,
  controller: new () => object = SomeController,
  handler: () => void = SomeController.prototype.someRoute,
): ExecutionContext {
  return {
    getHandler: () => handler,
    getClass: () => controller,
    switchToHttp: () => ({ getRequest: () => ({ headers: { authorization }, params }) }),
  } as unknown as ExecutionContext;
}

type RouteOf = [] | [controller: new () => object, handler: () => void];

describe('BearerAuthGuard', () => {
  const service = { authenticate: (token: string) => Promise.resolve(token === SESSION_TOKEN ? SESSION : undefined) };
  const guard = new BearerAuthGuard(
    new Reflector(),
    service as unknown as ProcessNotificationsService,
    {
      adminToken: 'the-admin-token',
    } as ServerConfig,
  );

  const refusal = async (params: Record<string, string>, authorization: string | undefined, ...route: RouteOf): Promise<unknown> => {
    try {
      return await guard.canActivate(contextFor(params, authorization, route[0], route[1]));
    } catch (error) {
      return error;
    }
  };

  it('refuses a session token on a route that names no session: it opens only its own session', async () => {
    const answer = await refusal({}, `Bearer ${SESSION_TOKEN}`);
    expect(answer).toBeInstanceOf(HttpProblemError);
    expect(answer).toMatchObject({ code: 'forbidden' });
  });

  it('opens the own session, whatever the case of its id in the path, and the admin token opens any', async () => {
    expect(await refusal({ sid: SESSION.toUpperCase() }, `Bearer ${SESSION_TOKEN}`)).toBe(true);
    expect(await refusal({}, 'Bearer the-admin-token')).toBe(true);
  });

  it('opens a public route without a token, and answers at once rather than with a promise', () => {
    const open = contextFor({}, undefined, OpenController, BaseController.prototype.inherited);
    expect(guard.canActivate(open)).toBe(true);
  });

  it('reads a handler inherited by two controllers by each controller: public on one, behind a token on the other', async () => {
    expect(await refusal({}, undefined, OpenController, BaseController.prototype.inherited)).toBe(true);
    expect(await refusal({}, undefined, ClosedController, BaseController.prototype.inherited)).toMatchObject({ code: 'unauthorized' });
    // Asked again, after the first answers were kept: still apart.
    expect(await refusal({}, undefined, ClosedController, BaseController.prototype.inherited)).toMatchObject({ code: 'unauthorized' });
    expect(await refusal({}, undefined, OpenController, BaseController.prototype.inherited)).toBe(true);
  });

  it('keeps an admin-only route from a session token, and opens an any-token route to it', async () => {
    const session = `Bearer ${SESSION_TOKEN}`;
    expect(await refusal({}, session, MarkedController, MarkedController.prototype.adminRoute)).toMatchObject({ code: 'forbidden' });
    expect(await refusal({}, 'Bearer the-admin-token', MarkedController, MarkedController.prototype.adminRoute)).toBe(true);
    expect(await refusal({}, session, MarkedController, MarkedController.prototype.anyTokenRoute)).toBe(true);
    expect(await refusal({}, 'Bearer not-a-token', MarkedController, MarkedController.prototype.anyTokenRoute)).toMatchObject({
      code: 'unauthorized',
    });
  });
});
