import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiDefaultResponse, ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { ServerResponse } from 'node:http';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { PROCESS_COMPLETION_NOTIFICATION_SCHEMA } from '../http/openapi-schemas.js';
import { ProblemDto } from '../http/problem.dto.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { ConsumptionDto } from './dto/consumption.dto.js';
import { EmptyRequestDto } from './dto/empty-request.dto.js';
import { PendingNotificationDto } from './dto/pending-notification.dto.js';
import { PendingNotificationsDto } from './dto/pending-notifications.dto.js';
import { ProcessCompletionDeliveryDto } from './dto/process-completion-delivery.dto.js';

@ApiTags('process notifications')
@ApiBearerAuth()
@ApiDefaultResponse({ type: ProblemDto, description: 'An RFC 9457 problem document (application/problem+json).' })
@Controller('v1/sessions/:sid')
export class ProcessNotificationsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post('process-completions')
  @ApiBody({ schema: PROCESS_COMPLETION_NOTIFICATION_SCHEMA })
  @ApiAcceptedResponse({ type: ProcessCompletionDeliveryDto, description: 'Accepted by the loop.' })
  @ApiOkResponse({ type: ProcessCompletionDeliveryDto, description: 'Duplicate: the loop already had it.' })
  async notify(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody() notification: unknown,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<ProcessCompletionDeliveryDto> {
    const delivery = await this.service.notifyProcessCompletion(sessionId, notification);
    response.statusCode = delivery.disposition === 'accepted' ? 202 : 200;
    if (!delivery.appended) response.setHeader('Idempotent-Replayed', 'true');
    return ProcessCompletionDeliveryDto.from(delivery);
  }

  @Get('loops/:lid/process-notifications')
  @ApiOkResponse({ type: PendingNotificationsDto })
  pending(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
  ): PendingNotificationsDto {
    return { notifications: this.service.pendingNotifications(sessionId, loopId).map((pending) => PendingNotificationDto.from(pending)) };
  }

  @Post('loops/:lid/process-notifications/:command_id/consume')
  @HttpCode(200)
  @ApiOkResponse({ type: ConsumptionDto, description: 'A second consume answers consumed: false.' })
  async consume(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @Param('command_id', new UuidParamPipe('command_id')) commandId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<ConsumptionDto> {
    const { consumed, sequence } = await this.service.consume(sessionId, loopId, commandId);
    if (!consumed) response.setHeader('Idempotent-Replayed', 'true');
    return { consumed, sequence };
  }
}
