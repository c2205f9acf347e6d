import { Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiParam } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { AdminOnly } from '../http/admin-only.decorator.js';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { ApiProblems, AUTH_PROBLEMS, BODY_PROBLEMS } from '../http/api-problems.decorator.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { CreateSessionRequestDto } from './dto/create-session-request.dto.js';
import { SessionCreatedDto } from './dto/session-created.dto.js';
import { SessionDto } from './dto/session.dto.js';
import { OwnerRouted } from '../cluster/owner-routed.decorator.js';

@ApiTags('sessions')
@ApiBearerAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @AdminOnly()
  @ApiBody({ type: CreateSessionRequestDto, required: false })
  @ApiCreatedResponse({ type: SessionCreatedDto, description: 'The token is shown once.' })
  @ApiProblems(...BODY_PROBLEMS, ...AUTH_PROBLEMS, 'already_exists', 'journal_unavailable')
  async create(@JsonBody(new ClosedSchemaPipe(CreateSessionRequestDto)) body: CreateSessionRequestDto): Promise<SessionCreatedDto> {
    const { sessionId, token } = await this.service.openSession(body.session_id);
    return { session_id: sessionId, token };
  }

  @Get(':sid')
  @OwnerRouted()
  @ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
  @ApiOkResponse({ type: SessionDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'owner_unavailable')
  async get(@Param('sid', new UuidParamPipe('session_id')) sessionId: string): Promise<SessionDto> {
    return SessionDto.from(await this.service.getSession(sessionId));
  }
}
