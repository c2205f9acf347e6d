import { ApiProperty } from '@nestjs/swagger';
import {
  LOOP_STATES,
  TERMINAL_PAIRS,
  TERMINAL_REASONS,
  type LoopState,
  type NotificationLocationView,
  type TerminalReason,
  type TerminalState,
} from 'nestjs-process-notifications';
import { ProcessOutcomeDto } from '../../sessions/dto/process-outcome.dto.js';
import type { NotificationLocation } from 'process-notifications-contract';

export class NotificationLocationDto implements NotificationLocation {
  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ format: 'uuid' })
  readonly loop_id: string;

  @ApiProperty({ enum: LOOP_STATES, nullable: true, description: 'The loop’s state now.' })
  readonly loop_state: LoopState | null;

  @ApiProperty({ type: 'integer', description: 'Journal sequence of the notification.' })
  readonly sequence: number;

  @ApiProperty({ type: String, nullable: true, description: 'Null once retention dropped the payload.' })
  readonly process_handle: string | null;

  @ApiProperty({ enum: Object.keys(TERMINAL_PAIRS), nullable: true })
  readonly state: TerminalState | null;

  @ApiProperty({ enum: TERMINAL_REASONS, nullable: true })
  readonly reason: TerminalReason | null;

  @ApiProperty({ format: 'date-time' })
  readonly created_at: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Sequence of its consumed record; null while unconsumed.' })
  readonly consumed_sequence: number | null;

  @ApiProperty({
    type: ProcessOutcomeDto,
    nullable: true,
    description: 'How its process ended; null until a completed or lost record names it.',
  })
  readonly outcome: ProcessOutcomeDto | null;

  static from(view: NotificationLocationView): NotificationLocationDto {
    return {
      session_id: view.sessionId,
      loop_id: view.loopId,
      loop_state: view.loopState,
      sequence: view.sequence,
      process_handle: view.processHandle,
      state: view.state,
      reason: view.reason,
      created_at: view.createdAt,
      consumed_sequence: view.consumedSequence,
      outcome: view.outcome === null ? null : ProcessOutcomeDto.from(view.outcome),
    };
  }
}
