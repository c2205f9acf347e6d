import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiDefaultResponse, ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { ClosedSchemaPipe } from '../http/closed-schema.pipe.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { ProblemDto } from '../http/problem.dto.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { EmptyRequestDto } from './dto/empty-request.dto.js';
import { LoopDto } from './dto/loop.dto.js';
import { OpenLoopRequestDto } from './dto/open-loop-request.dto.js';

@ApiTags('loops')
@ApiBearerAuth()
@ApiDefaultResponse({ type: ProblemDto, description: 'An RFC 9457 problem document (application/problem+json).' })
@Controller('v1/sessions/:sid/loops')
export class LoopsController {
  constructor(private readonly service: ProcessNotificationsService) {}

  @Post()
  @ApiBody({ type: OpenLoopRequestDto, required: false })
  @ApiCreatedResponse({ type: LoopDto })
  async open(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @JsonBody(new ClosedSchemaPipe(OpenLoopRequestDto)) body: OpenLoopRequestDto,
  ): Promise<LoopDto> {
    return LoopDto.from(await this.service.openLoop(sessionId, { loopId: body.loop_id, engine: body.engine }));
  }

  @Get(':lid')
  @ApiOkResponse({ type: LoopDto })
  get(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
  ): LoopDto {
    return LoopDto.from(this.service.getLoop(sessionId, loopId));
  }

  @Post(':lid/stop')
  @HttpCode(200)
  @ApiOkResponse({ type: LoopDto, description: 'Later deliveries answer stopped (loop_stopped).' })
  async stop(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @JsonBody(new ClosedSchemaPipe(EmptyRequestDto)) _body: EmptyRequestDto,
  ): Promise<LoopDto> {
    return LoopDto.from(await this.service.stopLoop(sessionId, loopId));
  }
}
