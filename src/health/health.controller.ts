import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { JournalUnavailableError, ProcessNotificationsService } from 'nestjs-process-notifications';
import { Public } from '../http/public.decorator.js';
import { ProblemDto } from '../http/problem.dto.js';

@ApiTags('health')
@Public()
@Controller('healthz')
export class HealthController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Get()
  @ApiOkResponse({ description: 'The database answers.', schema: { example: { status: 'ok' } } })
  @ApiServiceUnavailableResponse({ type: ProblemDto, description: 'The database does not answer.' })
  async check(): Promise<{ status: 'ok' }> {
    if (!(await this.service.isHealthy())) throw new JournalUnavailableError('the database does not answer');
    return { status: 'ok' };
  }
}
