import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { AdminOnly } from '../http/admin-only.decorator.js';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { ApiProblems, AUTH_PROBLEMS, BODY_PROBLEMS } from '../http/api-problems.decorator.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { CreateSessionRequestDto } from './dto/create-session-request.dto.js';
import { SessionCreatedDto } from './dto/session-created.dto.js';
import { SessionDto } from './dto/session.dto.js';
import { SessionTokenDto } from './dto/session-token.dto.js';
import { SessionClosedDto } from './dto/session-closed.dto.js';
import { EmptyRequestDto } from './dto/empty-request.dto.js';
import { OwnerRouted } from '../cluster/owner-routed.decorator.js';

@ApiTags(API_TAGS.sessions.name)
@ApiBearerAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a session',
    description:
      'The admin token only. Creates an open session, with the `session_id` of the optional body or a new one, and a random session token shown only in this answer (stored as a hash). An id already taken is `409 already_exists`.',
  })
  @AdminOnly()
  @ApiBody({ type: CreateSessionRequestDto, required: false })
  @ApiCreatedResponse({ type: SessionCreatedDto, description: 'The token is shown once.' })
  @ApiProblems(...BODY_PROBLEMS, ...AUTH_PROBLEMS, 'already_exists', 'journal_unavailable')
  async create(@JsonBody(new ClosedSchemaPipe(CreateSessionRequestDto)) body: CreateSessionRequestDto): Promise<SessionCreatedDto> {
    const { sessionId, token } = await this.service.openSession(body.session_id);
    return { session_id: sessionId, token };
  }

  @Get(':sid')
  @ApiOperation({
    summary: 'Read a session',
    description:
      "The session's state (`open` or `closed`, with `closed_at`) and its loops, for the admin token or the session's own token.",
  })
  @OwnerRouted()
  @ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
  @ApiOkResponse({ type: SessionDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'owner_unavailable')
  async get(@Param('sid', new UuidParamPipe('session_id')) sessionId: string): Promise<SessionDto> {
    return SessionDto.from(await this.service.getSession(sessionId));
  }

  /**
   * A new token for the session, shown once; the old one is refused from the commit on, on
   * every node. The admin token or the session's own.
   */
  @Post(':sid/token')
  @ApiOperation({
    summary: 'Rotate the session token',
    description:
      'Gives the session a new random token, shown only in this answer; from the commit on the old token answers `401 unauthorized` on every route and every node. Not idempotent: a retry makes another token.',
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
  @ApiBody({ type: EmptyRequestDto, required: false })
  @ApiOkResponse({ type: SessionTokenDto, description: 'The new token is shown once; the old one answers 401 from now on.' })
  @ApiProblems(...BODY_PROBLEMS, ...AUTH_PROBLEMS, 'session_not_found', 'session_closed', 'owner_unavailable', 'journal_unavailable')
  async rotateToken(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
  ): Promise<SessionTokenDto> {
    return SessionTokenDto.from(await this.service.rotateSessionToken(sessionId));
  }

  /**
   * Closes the session: its tokens are refused, its writes answer `session_closed`, and the admin
   * token still reads it. A second close answers the same `closed_at`.
   */
  @Post(':sid/close')
  @ApiOperation({
    summary: 'Close a session',
    description:
      'Closes the session for good: its tokens stop working and it takes no more writes (`409 session_closed`); the admin token still reads it. A second close answers the same `closed_at`.',
  })
  @OwnerRouted()
  @HttpCode(200)
  @ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
  @ApiBody({ type: EmptyRequestDto, required: false })
  @ApiOkResponse({ type: SessionClosedDto, description: 'Closed (now, or already: the same closed_at).' })
  @ApiProblems(...BODY_PROBLEMS, ...AUTH_PROBLEMS, 'session_not_found', 'owner_unavailable', 'journal_unavailable')
  async close(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
  ): Promise<SessionClosedDto> {
    return SessionClosedDto.from(await this.service.closeSession(sessionId));
  }
}
