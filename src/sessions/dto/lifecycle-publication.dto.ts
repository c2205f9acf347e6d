import { ApiProperty } from '@nestjs/swagger';
import type { LifecyclePublication } from 'nestjs-process-notifications';
import type { LifecyclePublication as ContractLifecyclePublication } from 'process-notifications-contract';

/** Answer of `POST .../process-lifecycle`: 201 when new, 200 on an identical retry. */
export class LifecyclePublicationDto implements ContractLifecyclePublication {
  @ApiProperty({ format: 'uuid' })
  readonly event_id: string;

  @ApiProperty({ type: 'integer', description: 'Journal sequence of the record (the original one on a retry).' })
  readonly sequence: number;

  @ApiProperty({ description: 'False on an identical retry: nothing was written.' })
  readonly appended: boolean;

  static from(publication: LifecyclePublication): LifecyclePublicationDto {
    return { event_id: publication.eventId, sequence: publication.sequence, appended: publication.appended };
  }
}
