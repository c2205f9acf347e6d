import {
  applyDecorators,
  Injectable,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { normaliseId } from 'nestjs-process-notifications';
import { tap, type Observable } from 'rxjs';
import { parsedJsonBody } from '../http/read-json-body.pipe.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RefusalLog, type RefusedRequest } from '../refusals/refusal-log.service.js';

// Which write a route is, set by `RecordsRefusals` and read back by the interceptor.
const REFUSED_REQUEST = Reflector.createDecorator<RefusedRequest>();

/**
 * Around a write route (see {@link RecordsRefusals}): when it fails, counts a refused delivery by
 * its disposition (completions only: `pn_notifications_total`), queues the refusal in the
 * {@link RefusalLog}, and lets the error go on unchanged to the problem filter, so the answer is
 * the one the route would give without it.
 *
 * The route's pipes run inside this interceptor, so their errors pass here too; none is one of
 * the refusal codes or carries a disposition (a bad path id is `invalid_field`, a bad body an
 * `HttpProblemError`), so they are neither counted nor recorded, as before the interceptor.
 */
@Injectable()
export class RefusedWriteInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly metrics: MetricsService,
    private readonly refusals: RefusalLog,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = this.reflector.get(REFUSED_REQUEST, context.getHandler());
    return next.handle().pipe(
      tap({
        error: (error: unknown) => {
          const http = context.switchToHttp().getRequest<FastifyRequest<{ Params: { sid: string } }>>();
          if (request === 'completion') this.metrics.countRefusedDelivery(error);
          // A refusal comes from the library, after the path's pipe took `sid` as a canonical
          // UUID; the raw parameter, normalised, is the id that pipe passed on.
          this.refusals.record(request, normaliseId(http.params.sid), parsedJsonBody(http.raw), error);
        },
      }),
    );
  }
}

/**
 * A session write whose refusals (spec section 12.1) are recorded: the route has a `:sid` and a
 * `@JsonBody()`, whose ids (`loop_id`, and `command_id` or `event_id`) the refusal names.
 * @param request a completion (counted in the metrics too) or a lifecycle record
 */
export const RecordsRefusals = (request: RefusedRequest): MethodDecorator =>
  applyDecorators(REFUSED_REQUEST(request), UseInterceptors(RefusedWriteInterceptor));
