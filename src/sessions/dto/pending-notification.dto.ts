import { ApiProperty } from '@nestjs/swagger';
import {
  TERMINAL_REASONS,
  TERMINAL_PAIRS,
  type PendingNotificationView,
  type TerminalReason,
  type TerminalState,
} from 'nestjs-process-notifications';
import { ProcessOutcomeDto } from './process-outcome.dto.js';

export class PendingNotificationDto {
  @ApiProperty({ format: 'uuid' })
  readonly command_id: string;

  @ApiProperty({ format: 'uuid' })
  readonly session_id: string;

  @ApiProperty({ format: 'uuid' })
  readonly loop_id: string;

  @ApiProperty()
  readonly process_handle: string;

  @ApiProperty({ enum: Object.keys(TERMINAL_PAIRS) })
  readonly state: TerminalState;

  @ApiProperty({ enum: TERMINAL_REASONS })
  readonly reason: TerminalReason;

  @ApiProperty({ type: 'integer', description: 'Journal sequence of the notification.' })
  readonly sequence: number;

  @ApiProperty({
    type: ProcessOutcomeDto,
    nullable: true,
    description: 'How the process ended: null until a completed or lost record of the session names this command_id.',
  })
  readonly outcome: ProcessOutcomeDto | null;

  static from(pending: PendingNotificationView): PendingNotificationDto {
    return {
      command_id: pending.commandId,
      session_id: pending.sessionId,
      loop_id: pending.loopId,
      process_handle: pending.processHandle,
      state: pending.state,
      reason: pending.reason,
      sequence: pending.sequence,
      outcome: pending.outcome === null ? null : ProcessOutcomeDto.from(pending.outcome),
    };
  }
}
