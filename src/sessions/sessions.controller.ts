import { Controller, Get, Param, Post } from '@nestjs/common';
import { ApiDefaultResponse, ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { AdminOnly } from '../http/admin-only.decorator.js';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { ProblemDto } from '../http/problem.dto.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { CreateSessionRequestDto } from './dto/create-session-request.dto.js';
import { SessionCreatedDto } from './dto/session-created.dto.js';
import { SessionDto } from './dto/session.dto.js';

@ApiTags('sessions')
@ApiBearerAuth()
@ApiDefaultResponse({ type: ProblemDto, description: 'An RFC 9457 problem document (application/problem+json).' })
@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @AdminOnly()
  @ApiBody({ type: CreateSessionRequestDto, required: false })
  @ApiCreatedResponse({ type: SessionCreatedDto, description: 'The token is shown once.' })
  async create(@JsonBody(new ClosedSchemaPipe(CreateSessionRequestDto)) body: CreateSessionRequestDto): Promise<SessionCreatedDto> {
    const { sessionId, token } = await this.service.openSession(body.session_id);
    return { session_id: sessionId, token };
  }

  @Get(':sid')
  @ApiOkResponse({ type: SessionDto })
  get(@Param('sid', new UuidParamPipe('session_id')) sessionId: string): SessionDto {
    return SessionDto.from(this.service.getSession(sessionId));
  }
}
