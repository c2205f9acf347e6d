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
  @ApiOperation({ summary: 'Open a loop' })
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
  @ApiOperation({ summary: 'Read a loop' })
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
  @ApiOperation({ summary: 'Stop a loop' })
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
