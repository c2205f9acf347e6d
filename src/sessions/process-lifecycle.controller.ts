import { Controller, Param, Post, Res } from '@nestjs/common';
import { ApiDefaultResponse, ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { ServerResponse } from 'node:http';
import { JsonBody } from '../http/json-body.decorator.js';
import { PROCESS_LIFECYCLE_RECORD_SCHEMA } from '../http/openapi-schemas.js';
import { ProblemDto } from '../http/problem.dto.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { LifecyclePublicationDto } from './dto/lifecycle-publication.dto.js';

@ApiTags('process lifecycle')
@ApiBearerAuth()
@ApiDefaultResponse({ type: ProblemDto, description: 'An RFC 9457 problem document (application/problem+json).' })
@Controller('v1/sessions/:sid/process-lifecycle')
export class ProcessLifecycleController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @ApiBody({ schema: PROCESS_LIFECYCLE_RECORD_SCHEMA })
  @ApiCreatedResponse({ type: LifecyclePublicationDto, description: 'Journaled and published.' })
  @ApiOkResponse({ type: LifecyclePublicationDto, description: 'Identical retry: nothing new was written.' })
  async publish(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody() record: unknown,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<LifecyclePublicationDto> {
    const publication = await this.service.publishProcessLifecycle(sessionId, record);
    if (!publication.appended) {
      response.statusCode = 200;
      response.setHeader('Idempotent-Replayed', 'true');
    }
    return LifecyclePublicationDto.from(publication);
  }
}
