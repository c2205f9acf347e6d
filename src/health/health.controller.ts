import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { JournalUnavailableError, ProcessNotificationsService } from 'nestjs-process-notifications';
import { HttpProblemError } from '../http/http-problem.error.js';
import { Public } from '../http/public.decorator.js';
import { ShutdownState } from '../shutdown/shutdown-state.js';
import { ApiProblems } from '../http/api-problems.decorator.js';

const HEALTHY = { status: 'ok' } as const;

@ApiTags(API_TAGS.health.name)
@Public()
@Controller('healthz')
export class HealthController {
  constructor(
    private readonly service: ProcessNotificationsService,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Health check',
    description:
      'No token. `200` while the database answers; `503 journal_unavailable` when it does not, or once this node is shutting down, so a load balancer stops sending here.',
  })
  @ApiOkResponse({
    description: 'The database answers.',
    schema: { type: 'object', properties: { status: { type: 'string', enum: [HEALTHY.status] } }, required: ['status'], example: HEALTHY },
  })
  @ApiProblems('journal_unavailable')
  check(): Promise<{ status: 'ok' }> {
    // From the moment a shutdown signal arrived: a load balancer stops sending here at once
    // (the answer carries `Connection: close` too, see GracefulShutdown).
    if (this.shutdown.shuttingDown) return Promise.reject(this.shuttingDown());
    // A promise chain, not an async function: one promise per check fewer, on the route that
    // measures what the server adds to every request.
    return this.service.isHealthy().then((healthy) => {
      // Also for a check that was waiting for the database when the signal came: every answer
      // sent after it says 503 (that one goes out with `Connection: close` too).
      if (this.shutdown.shuttingDown) throw this.shuttingDown();
      if (!healthy) throw new JournalUnavailableError('the database does not answer');
      return HEALTHY;
    });
  }

  private shuttingDown(): HttpProblemError {
    return new HttpProblemError('journal_unavailable', 'This node is shutting down; use another one.');
  }
}
