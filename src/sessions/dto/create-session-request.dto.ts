import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateIf } from 'class-validator';
import type { InputSchema } from 'nestjs-process-notifications';
import type { CreateSessionRequest } from 'process-notifications-contract';

/** Body of `POST /v1/sessions` (optional). The library checks the UUID itself. */
export class CreateSessionRequestDto implements CreateSessionRequest {
  @ApiPropertyOptional({ format: 'uuid', description: 'The id to use; a random UUID when omitted.' })
  @ValidateIf((_object, value) => value !== undefined)
  @IsString()
  readonly session_id?: string;

  static readonly schema: InputSchema = { properties: ['session_id'] };
}
