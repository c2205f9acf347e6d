import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { ADMIN_ONLY_ROUTE } from './admin-only.decorator.js';
import { HttpProblemError } from './http-problem.error.js';
import { PUBLIC_ROUTE } from './public.decorator.js';
import { ANY_TOKEN_ROUTE, setPrincipal } from './principal.js';

const BEARER = /^Bearer +([^\s]+) *$/i;

function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/**
 * `Authorization: Bearer <token>` on every route not marked {@link Public}. The admin token
 * opens everything; a session token opens only the routes of its own session (`:sid`), and
 * those marked {@link AnyToken}. Who the token is, is kept for `@RequestPrincipal()`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly adminDigest: Buffer;

  constructor(
    private readonly reflector: Reflector,
    private readonly service: ProcessNotificationsService,
    @Inject(SERVER_CONFIG) config: ServerConfig,
  ) {
    this.adminDigest = digest(config.adminToken);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<IncomingMessage & { params?: Record<string, string> }>();
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (!token) throw new HttpProblemError('unauthorized', 'A bearer token is required.');
    // Equal-length digests, so the comparison takes the same time whatever the token.
    if (timingSafeEqual(digest(token), this.adminDigest)) {
      setPrincipal(request, { kind: 'admin', sessionId: null });
      return true;
    }
    const sessionId = await this.service.authenticate(token);
    if (!sessionId) throw new HttpProblemError('unauthorized', 'Unknown bearer token.');
    setPrincipal(request, { kind: 'session', sessionId });
    if (this.reflector.getAllAndOverride<boolean>(ANY_TOKEN_ROUTE, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY_ROUTE, targets)) {
      throw new HttpProblemError('forbidden', 'Only the admin token may do this.');
    }
    if (request.params?.sid?.toLowerCase() !== sessionId) {
      throw new HttpProblemError('forbidden', 'This token opens another session.');
    }
    return true;
  }
}
