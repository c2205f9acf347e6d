import { ApiProperty } from '@nestjs/swagger';
import type { JournalRecordView } from 'nestjs-process-notifications';
import { JOURNAL_KINDS, type JournalKind } from 'process-notifications-contract';

export class JournalRecordDto {
  @ApiProperty({ type: 'integer' })
  readonly sequence: number;

  @ApiProperty({ enum: JOURNAL_KINDS, example: 'process_notification' })
  readonly kind: JournalKind;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  readonly loop_id: string | null;

  @ApiProperty()
  readonly idempotency_id: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  readonly cause_command_id: string | null;

  @ApiProperty({ format: 'date-time' })
  readonly created_at: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The canonical persisted payload; null once retention (PN_RETENTION_DAYS) dropped it.',
  })
  readonly payload: Record<string, unknown> | null;

  static from(record: JournalRecordView): JournalRecordDto {
    return {
      sequence: record.sequence,
      kind: record.kind,
      loop_id: record.loopId,
      idempotency_id: record.idempotencyId,
      cause_command_id: record.causeCommandId,
      created_at: record.createdAt,
      payload: record.payload,
    };
  }
}
