import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { JournalUnavailableError, ProcessNotificationsService } from 'nestjs-process-notifications';
import { HttpProblemError } from '../http/http-problem.error.js';
import { Public } from '../http/public.decorator.js';
import { ShutdownState } from '../shutdown/shutdown-state.js';
import { ApiProblems } from '../http/api-problems.decorator.js';

@ApiTags('health')
@Public()
@Controller('healthz')
export class HealthController {
  constructor(
    private readonly service: ProcessNotificationsService,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'The database answers.', schema: { example: { status: 'ok' } } })
  @ApiProblems('journal_unavailable')
  async check(): Promise<{ status: 'ok' }> {
    // From the moment a shutdown signal arrived: a load balancer stops sending here at once
    // (the answer carries `Connection: close` too, see GracefulShutdown).
    if (this.shutdown.shuttingDown) throw new HttpProblemError('journal_unavailable', 'This node is shutting down; use another one.');
    if (!(await this.service.isHealthy())) throw new JournalUnavailableError('the database does not answer');
    return { status: 'ok' };
  }
}
