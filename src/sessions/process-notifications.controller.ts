import { Controller, Get, HttpCode, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ProcessNotificationsService, type NotificationDelivery } from 'nestjs-process-notifications';
import { IDEMPOTENT_REPLAYED_HEADER, MAX_DELIVERY_BATCH, RETRY_AFTER_HEADER } from 'process-notifications-contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { REPLAYED_RESPONSE_HEADER } from '../http/api-response-headers.js';
import { ApiProblems, AUTH_PROBLEMS, BODY_PROBLEMS } from '../http/api-problems.decorator.js';
import { PROCESS_COMPLETION_NOTIFICATION_SCHEMA } from '../http/openapi-schemas.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { ConsumptionDto } from './dto/consumption.dto.js';
import { EmptyRequestDto } from './dto/empty-request.dto.js';
import { PendingNotificationDto } from './dto/pending-notification.dto.js';
import { PendingNotificationsDto } from './dto/pending-notifications.dto.js';
import { ProcessCompletionDeliveryDto } from './dto/process-completion-delivery.dto.js';
import { OwnerRouted } from '../cluster/owner-routed.decorator.js';
import { ConsumeBatchRequestDto } from './dto/consume-batch-request.dto.js';
import { ConsumeBatchResultDto, ConsumeBatchResultsDto } from './dto/consume-batch-result.dto.js';
import { RefusedWrites } from './refused-writes.service.js';
import { DeliveryBatchRequestDto } from './dto/delivery-batch-request.dto.js';
import { DeliveryBatchResultDto, DeliveryBatchResultsDto } from './dto/delivery-batch-result.dto.js';
import { problemDocumentOf } from '../http/problem-document.js';

const EXAMPLE_COMMAND_ID = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

// The headers of a single delivery's answer that concern its notification, as a batch result
// names them (lower-case, as HTTP/2 and Node's parsers spell header names).
const RESULT_HEADERS: Readonly<Record<string, string>> = {
  [RETRY_AFTER_HEADER]: 'retry-after',
  [IDEMPOTENT_REPLAYED_HEADER]: 'idempotent-replayed',
};

@ApiTags(API_TAGS.processNotifications.name)
@ApiBearerAuth()
@ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
@Controller('v1/sessions/:sid')
export class ProcessNotificationsController {
  private readonly logger = new Logger('HTTP');

  constructor(
    private readonly service: ProcessNotificationsService,
    private readonly metrics: MetricsService,
    private readonly refusedWrites: RefusedWrites,
  ) {}

  @Post('process-completions')
  @ApiOperation({
    summary: 'Deliver a process completion notification',
    description:
      'Journals the notification, then hands it to its loop: `202 accepted` when it was new, `200 duplicate` for an identical retry (`Idempotent-Replayed: true`), `503 delivery_stopped` with its `cause` when the loop is full or stopped or the notification is misrouted. The same `command_id` with another payload is `422 idempotency_collision`.',
  })
  @OwnerRouted()
  @ApiBody({ schema: PROCESS_COMPLETION_NOTIFICATION_SCHEMA })
  @ApiAcceptedResponse({
    type: ProcessCompletionDeliveryDto,
    description: 'Accepted by the loop.',
    headers: REPLAYED_RESPONSE_HEADER,
    example: { disposition: 'accepted', command_id: EXAMPLE_COMMAND_ID, sequence: 7, appended: true },
  })
  @ApiOkResponse({
    type: ProcessCompletionDeliveryDto,
    description: 'Duplicate: the loop already had it (an identical retry also carries Idempotent-Replayed: true).',
    headers: REPLAYED_RESPONSE_HEADER,
    example: { disposition: 'duplicate', command_id: EXAMPLE_COMMAND_ID, sequence: 7, appended: false },
  })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'owner_mismatch',
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'loop_not_found',
    'unsupported_engine',
    'idempotency_collision',
    'delivery_stopped',
    'journal_unavailable',
  )
  async notify(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody() notification: unknown,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<ProcessCompletionDeliveryDto> {
    let delivery: NotificationDelivery;
    try {
      delivery = await this.service.notifyProcessCompletion(sessionId, notification);
    } catch (error) {
      throw this.refusedWrites.refused('completion', sessionId, notification, error);
    }
    this.metrics.countDelivery(delivery.disposition);
    response.statusCode = delivery.disposition === 'accepted' ? 202 : 200;
    if (!delivery.appended) response.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return ProcessCompletionDeliveryDto.from(delivery);
  }

  @Post('process-completions/batch')
  @ApiOperation({
    summary: 'Deliver process completion notifications in a batch',
    description: `Delivers 1 to ${MAX_DELIVERY_BATCH} notifications of the session, each exactly as \`POST .../process-completions\` would deliver it alone (the same checks, journal and loop), and answers one result per notification, in order: the status, headers and body the single delivery would have answered (\`202\` accepted, \`200\` duplicate, or a problem such as \`422 idempotency_collision\` or \`503 delivery_stopped\`). The notifications share the journal's commits as concurrent deliveries do. The TypeScript client sends deliveries of one session issued together this way.`,
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiBody({ type: DeliveryBatchRequestDto })
  @ApiOkResponse({
    type: DeliveryBatchResultsDto,
    description: 'An answer per notification, in order, as the single delivery would have answered it.',
    example: {
      results: [
        { status: 202, headers: {}, body: { disposition: 'accepted', command_id: EXAMPLE_COMMAND_ID, sequence: 7, appended: true } },
        {
          status: 422,
          headers: {},
          body: {
            type: 'urn:process-notifications:problem:idempotency_collision',
            title: 'Idempotency collision',
            status: 422,
            detail: 'command_id 0192f3a4-5b6c-7d8e-9f01-23456789abce was journaled with another payload',
            code: 'idempotency_collision',
            sequence: 3,
          },
        },
      ],
    },
  })
  @ApiProblems(...BODY_PROBLEMS, ...AUTH_PROBLEMS, 'owner_unavailable', 'journal_unavailable')
  async notifyMany(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<DeliveryBatchResultsDto> {
    const { notifications } = DeliveryBatchRequestDto.of(body);
    // Together, as concurrent single deliveries: the journal writer commits them in its batches.
    const results = await Promise.all(notifications.map((notification) => this.deliverOne(sessionId, notification, request)));
    this.metrics.countBatchDeliveries(results);
    return { results };
  }

  // One notification of a batch, answered as the single route answers it (its refusals counted and
  // recorded alike).
  private async deliverOne(sessionId: string, notification: unknown, request: FastifyRequest): Promise<DeliveryBatchResultDto> {
    try {
      const delivery = await this.service.notifyProcessCompletion(sessionId, notification);
      this.metrics.countDelivery(delivery.disposition);
      return {
        status: delivery.disposition === 'accepted' ? 202 : 200,
        headers: delivery.appended ? {} : { [RESULT_HEADERS[IDEMPOTENT_REPLAYED_HEADER]!]: 'true' },
        body: ProcessCompletionDeliveryDto.from(delivery),
      };
    } catch (error) {
      const refused = this.refusedWrites.refused('completion', sessionId, notification, error);
      const { status, headers, body } = problemDocumentOf(refused, request, (unexpected) =>
        this.logger.error(unexpected instanceof Error ? (unexpected.stack ?? unexpected.message) : String(unexpected)),
      );
      const named = Object.entries(headers).flatMap(([name, value]) => (RESULT_HEADERS[name] ? [[RESULT_HEADERS[name], value]] : []));
      return { status, headers: Object.fromEntries(named), body };
    }
  }

  @Get('loops/:lid/process-notifications')
  @ApiOperation({
    summary: "List a loop's pending notifications",
    description:
      "The loop's pending set in acceptance order, each with its journal `sequence` and its `outcome` once a `completed` or `lost` record of the session named its `command_id` (else `null`).",
  })
  @OwnerRouted()
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiOkResponse({ type: PendingNotificationsDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'owner_unavailable', 'loop_not_found', 'journal_unavailable')
  async pending(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
  ): Promise<PendingNotificationsDto> {
    const pending = await this.service.pendingNotifications(sessionId, loopId);
    return { notifications: pending.map((notification) => PendingNotificationDto.from(notification)) };
  }

  @Post('loops/:lid/process-notifications/consume')
  @ApiOperation({
    summary: 'Consume notifications in a batch',
    description:
      'Consumes 1 to 256 notifications of the loop in one journal transaction and answers one result per id, in order: `{command_id, consumed, sequence}` as the single consume answers, or `{command_id, code: "not_found"}` for an id the loop never journaled. A repeated id answers `consumed: false`.',
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiBody({ type: ConsumeBatchRequestDto })
  @ApiOkResponse({
    type: ConsumeBatchResultsDto,
    description: 'One journal transaction for the batch; an answer per command id, in order.',
    example: {
      results: [
        { command_id: EXAMPLE_COMMAND_ID, consumed: true, sequence: 12 },
        { command_id: '0192f3a4-5b6c-7d8e-9f01-23456789abce', code: 'not_found' },
      ],
    },
  })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'loop_not_found',
    'journal_unavailable',
  )
  async consumeMany(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @JsonBody(new ClosedSchemaPipe(ConsumeBatchRequestDto)) body: ConsumeBatchRequestDto,
  ): Promise<ConsumeBatchResultsDto> {
    const results = await this.service.consumeMany(sessionId, loopId, body.command_ids as string[]);
    return { results: results.map((result) => ConsumeBatchResultDto.from(result)) };
  }

  @Post('loops/:lid/process-notifications/:command_id/consume')
  @ApiOperation({
    summary: 'Consume a notification',
    description:
      'Marks the notification consumed (a consumed record in the journal) and removes it from the pending set; a second consume answers `consumed: false`. A notification the loop refused but journaled is consumed like a pending one; an id the loop never journaled is `404 not_found`.',
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiParam({ name: 'command_id', format: 'uuid', description: 'The notification to consume.' })
  @ApiBody({ type: EmptyRequestDto, required: false })
  @ApiOkResponse({
    type: ConsumptionDto,
    description: 'A second consume answers consumed: false (and Idempotent-Replayed: true).',
    headers: REPLAYED_RESPONSE_HEADER,
  })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'loop_not_found',
    'not_found',
    'journal_unavailable',
  )
  async consume(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @Param('command_id', new UuidParamPipe('command_id')) commandId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<ConsumptionDto> {
    const { consumed, sequence } = await this.service.consume(sessionId, loopId, commandId);
    if (!consumed) response.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return { consumed, sequence };
  }
}
