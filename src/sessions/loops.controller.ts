import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { ApiProblems, AUTH_PROBLEMS, BODY_PROBLEMS } from '../http/api-problems.decorator.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { EmptyRequestDto } from './dto/empty-request.dto.js';
import { LoopDto } from './dto/loop.dto.js';
import { OpenLoopRequestDto } from './dto/open-loop-request.dto.js';
import { OwnerRouted } from '../cluster/owner-routed.decorator.js';

@ApiTags(API_TAGS.loops.name)
@ApiBearerAuth()
@ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
@Controller('v1/sessions/:sid/loops')
export class LoopsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @ApiOperation({
    summary: 'Open a loop',
    description:
      "Opens a loop of the session (`native` by default, or `foreign`), with the `loop_id` of the optional body or a new one, and the server's capacity for its pending set. At most `PN_MAX_LOOPS_PER_SESSION` loops (`409 loop_limit_reached`).",
  })
  @OwnerRouted()
  @ApiBody({ type: OpenLoopRequestDto, required: false })
  @ApiCreatedResponse({ type: LoopDto })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'already_exists',
    'loop_limit_reached',
    'journal_unavailable',
  )
  async open(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody(new ClosedSchemaPipe(OpenLoopRequestDto)) body: OpenLoopRequestDto,
  ): Promise<LoopDto> {
    return LoopDto.from(await this.service.openLoop(sessionId, { loopId: body.loop_id, engine: body.engine }));
  }

  @Get(':lid')
  @ApiOperation({
    summary: 'Read a loop',
    description: "The loop's engine, state (`running` or `stopped`), capacity and how many notifications are pending.",
  })
  @OwnerRouted()
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiOkResponse({ type: LoopDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'owner_unavailable', 'loop_not_found')
  async get(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
  ): Promise<LoopDto> {
    return LoopDto.from(await this.service.getLoop(sessionId, loopId));
  }

  @Post(':lid/stop')
  @ApiOperation({
    summary: 'Stop a loop',
    description:
      'Stops the loop: later deliveries to it answer `503 delivery_stopped` (cause `loop_stopped`); what it holds stays consumable.',
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiBody({ type: EmptyRequestDto, required: false })
  @ApiOkResponse({ type: LoopDto, description: 'Later deliveries answer stopped (loop_stopped).' })
  @ApiProblems(
    ...BODY_PROBLEMS,
    ...AUTH_PROBLEMS,
    'session_not_found',
    'session_closed',
    'owner_unavailable',
    'loop_not_found',
    'journal_unavailable',
  )
  async stop(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
  ): Promise<LoopDto> {
    return LoopDto.from(await this.service.stopLoop(sessionId, loopId));
  }
}
