import { Controller, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ProcessNotificationsService, type LifecycleKind, type LifecyclePublication } from 'nestjs-process-notifications';
import { IDEMPOTENT_REPLAYED_HEADER } from 'process-notifications-contract';
import type { FastifyReply } from 'fastify';
import { JsonBody } from '../http/json-body.decorator.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { REPLAYED_RESPONSE_HEADER } from '../http/api-response-headers.js';
import { ApiProblems, AUTH_PROBLEMS, BODY_PROBLEMS } from '../http/api-problems.decorator.js';
import { PROCESS_LIFECYCLE_RECORD_SCHEMA } from '../http/openapi-schemas.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { LifecyclePublicationDto } from './dto/lifecycle-publication.dto.js';
import { OwnerRouted } from '../cluster/owner-routed.decorator.js';
import { RefusedWrites } from './refused-writes.service.js';

const EXAMPLE_EVENT_ID = '0192f3a4-5b6c-7d8e-9f01-23456789abce';

@ApiTags(API_TAGS.processLifecycle.name)
@ApiBearerAuth()
@ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
@Controller('v1/sessions/:sid/process-lifecycle')
export class ProcessLifecycleController {
  constructor(
    private readonly service: ProcessNotificationsService,
    private readonly metrics: MetricsService,
    private readonly refusedWrites: RefusedWrites,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Publish a process lifecycle record',
    description:
      'Journals a lifecycle record of the supervisor (`started`, `completed`, `lost`, ...): `201` when new, `200` for an identical retry (`Idempotent-Replayed: true`); the same `event_id` with another payload is `422 idempotency_collision`. A `completed` or `lost` record gives the named notification its outcome.',
  })
  @OwnerRouted()
  @ApiBody({ schema: PROCESS_LIFECYCLE_RECORD_SCHEMA })
  @ApiCreatedResponse({
    type: LifecyclePublicationDto,
    description: 'Journaled and published.',
    example: { event_id: EXAMPLE_EVENT_ID, sequence: 12, appended: true },
  })
  @ApiOkResponse({
    type: LifecyclePublicationDto,
    description: 'Identical retry: nothing new was written (Idempotent-Replayed: true).',
    headers: REPLAYED_RESPONSE_HEADER,
    example: { event_id: EXAMPLE_EVENT_ID, sequence: 12, appended: false },
  })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'owner_mismatch',
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'idempotency_collision',
    'journal_unavailable',
  )
  async publish(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody() record: unknown,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<LifecyclePublicationDto> {
    let publication: LifecyclePublication;
    try {
      publication = await this.service.publishProcessLifecycle(sessionId, record);
    } catch (error) {
      throw this.refusedWrites.refused('lifecycle', sessionId, record, error);
    }
    // Published, so the library validated the record: its kind is one of the five.
    if (publication.appended) {
      this.metrics.countLifecycleRecord((record as { kind: LifecycleKind }).kind);
    } else {
      response.statusCode = 200;
      response.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    }
    return LifecyclePublicationDto.from(publication);
  }
}
