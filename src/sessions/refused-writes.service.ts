import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';
import { RefusalLog, type RefusedRequest } from '../refusals/refusal-log.service.js';

/**
 * What a session write that failed leaves behind (spec section 12.1): a refused completion is
 * counted by its disposition (`pn_notifications_total`), and the refusal is queued in the
 * {@link RefusalLog}, which keeps only the library's refusal codes.
 *
 * The two write routes call it around their library call and throw the error on unchanged to the
 * problem filter. Not a Nest interceptor: one wraps every request of its route, refused or not, in
 * an rxjs chain and an async scope, about a fifth of the delivery route's server CPU (apps/bench,
 * `http/notify`); the errors a route's pipes throw (a bad path id, a bad body) are no refusal codes
 * and carry no disposition, so only the library call's errors can count here.
 */
@Injectable()
export class RefusedWrites {
  constructor(
    private readonly metrics: MetricsService,
    private readonly refusals: RefusalLog,
  ) {}

  /**
   * Counts and records `error` if it refused the write, and returns it for the route to throw.
   * @param sessionId the path's session id as the route's pipe passed it on
   * @param body the body `JsonBody` parsed (only its ids are recorded)
   */
  refused(request: RefusedRequest, sessionId: string, body: unknown, error: unknown): unknown {
    if (request === 'completion') this.metrics.countRefusedDelivery(error);
    this.refusals.record(request, sessionId, body, error);
    return error;
  }
}
