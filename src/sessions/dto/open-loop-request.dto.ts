import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, ValidateIf } from 'class-validator';
import { LOOP_ENGINES, type InputSchema, type LoopEngine } from 'nestjs-process-notifications';
import type { OpenLoopRequest } from 'process-notifications-contract';

/** Body of `POST /v1/sessions/:sid/loops` (optional). The library checks the UUID itself. */
export class OpenLoopRequestDto implements OpenLoopRequest {
  @ApiPropertyOptional({ enum: LOOP_ENGINES, default: 'native', description: 'Only native loops take process notifications.' })
  @ValidateIf((_object, value) => value !== undefined)
  @IsIn(LOOP_ENGINES)
  readonly engine?: LoopEngine;

  @ApiPropertyOptional({ format: 'uuid', description: 'The id to use; a random UUID when omitted.' })
  @ValidateIf((_object, value) => value !== undefined)
  @IsString()
  readonly loop_id?: string;

  static readonly schema: InputSchema = { properties: ['engine', 'loop_id'] };
}
