import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeOf } from '../http/route-table.js';
import { MetricsService } from './metrics.service.js';

/** Status label of a request whose client went away before any answer was sent. */
export const ABORTED_STATUS = 'aborted';

/**
 * Counts every request once its connection is done with it (`pn_http_requests_total`), by the
 * route template it matched and the status it was answered with: failures of authentication,
 * routing and body parsing included, which an interceptor would not see. A path the router cannot
 * percent-decode never reaches middleware: `createServerApp` runs this one for it by hand.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    // 'close' follows 'finish' and also fires when the client aborts, so each request counts once.
    response.once('close', () => {
      this.metrics.countHttpRequest(routeOf(request), response.headersSent ? String(response.statusCode) : ABORTED_STATUS);
    });
    next();
  }
}
