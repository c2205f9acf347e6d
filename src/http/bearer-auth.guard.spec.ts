import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { ServerConfig } from '../config/server-config.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { HttpProblemError } from './http-problem.error.js';

const SESSION = '0b0e7c1e-3c1d-4c4e-9a43-5a2d8f1e6b70';
const SESSION_TOKEN = 'a-session-token';

// A request as Fastify hands it to guards: `params` is always an object, empty on a route
// without path parameters.
function contextFor(params: Record<string, string>, authorization: string): ExecutionContext {
  class SomeController {
    someRoute(): void {}
  }
  return {
    getHandler: () => SomeController.prototype.someRoute,
    getClass: () => SomeController,
    switchToHttp: () => ({ getRequest: () => ({ headers: { authorization }, params }) }),
  } as unknown as ExecutionContext;
}

describe('BearerAuthGuard', () => {
  const service = { authenticate: (token: string) => Promise.resolve(token === SESSION_TOKEN ? SESSION : undefined) };
  const guard = new BearerAuthGuard(
    new Reflector(),
    service as unknown as ProcessNotificationsService,
    {
      adminToken: 'the-admin-token',
    } as ServerConfig,
  );

  const refusal = async (params: Record<string, string>, authorization: string): Promise<unknown> => {
    try {
      return await guard.canActivate(contextFor(params, authorization));
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
});
