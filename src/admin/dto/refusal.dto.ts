import { ApiProperty } from '@nestjs/swagger';
import { STOP_CAUSES, type StopCause } from 'nestjs-process-notifications';
import { REFUSAL_CODES, type Refusal, type RefusalCode } from '../../refusals/refusal-log.service.js';
import type { Refusal as ContractRefusal } from 'process-notifications-contract';

export class RefusalDto implements ContractRefusal {
  @ApiProperty({ format: 'date-time' })
  readonly at: string;

  @ApiProperty({ enum: REFUSAL_CODES })
  readonly code: RefusalCode;

  @ApiProperty({ format: 'uuid', description: 'The session of the route.' })
  readonly session_id: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  readonly loop_id: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'A completion’s id; null for a lifecycle record.' })
  readonly command_id: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'A lifecycle record’s id; null for a completion.' })
  readonly event_id: string | null;

  @ApiProperty({ enum: STOP_CAUSES, nullable: true, description: 'The delivery stopped cause, else null.' })
  readonly cause: StopCause | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'An idempotency_collision: the journal sequence of the original (in the same session); else null.',
  })
  readonly original_sequence: number | null;

  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      'An idempotency_collision: the names of the fields whose values differ from the original’s, sorted (names only, never values; empty when the original’s payload was dropped by retention); else null.',
  })
  readonly differing_fields: string[] | null;

  @ApiProperty({ format: 'uuid', description: 'The node that answered (as GET /v1/admin/nodes names it).' })
  readonly node_id: string;

  static from(refusal: Refusal): RefusalDto {
    return {
      at: refusal.at,
      code: refusal.code,
      session_id: refusal.sessionId,
      loop_id: refusal.loopId,
      command_id: refusal.commandId,
      event_id: refusal.eventId,
      cause: refusal.cause,
      original_sequence: refusal.originalSequence,
      differing_fields: refusal.differingFields === null ? null : [...refusal.differingFields],
      node_id: refusal.nodeId,
    };
  }
}
