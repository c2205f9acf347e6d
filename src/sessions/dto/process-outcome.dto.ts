import { ApiProperty } from '@nestjs/swagger';
import { OUTCOME_KINDS, type OutcomeKind, type ProcessOutcome } from 'nestjs-process-notifications';
import type { ProcessOutcome as ContractProcessOutcome } from 'process-notifications-contract';

/** How a notification's process ended (section 14): from the first completed or lost record naming it. */
export class ProcessOutcomeDto implements ContractProcessOutcome {
  @ApiProperty({ format: 'uuid', description: 'event_id of the lifecycle record.' })
  readonly event_id: string;

  @ApiProperty({ enum: OUTCOME_KINDS })
  readonly kind: OutcomeKind;

  @ApiProperty()
  readonly has_exit_code: boolean;

  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, description: 'null when the record carried none.' })
  readonly exit_code: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'null when the record carried none.' })
  readonly diagnostic: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'SIGSEGV',
    description: 'The POSIX signal that ended the command; null when the record named none.',
  })
  readonly signal: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'RFC 3339, exactly as the supervisor sent it.' })
  readonly process_started_at: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'RFC 3339, exactly as the supervisor sent it.' })
  readonly process_finished_at: string | null;

  static from(outcome: ProcessOutcome): ProcessOutcomeDto {
    return {
      event_id: outcome.eventId,
      kind: outcome.kind,
      has_exit_code: outcome.hasExitCode,
      exit_code: outcome.exitCode,
      diagnostic: outcome.diagnostic,
      signal: outcome.signal,
      process_started_at: outcome.processStartedAt,
      process_finished_at: outcome.processFinishedAt,
    };
  }
}
