import { ApiProperty } from '@nestjs/swagger';
import { NodeDto } from './node.dto.js';
import type { ClusterNodes } from 'process-notifications-contract';

export class NodesDto implements ClusterNodes {
  @ApiProperty({ type: [NodeDto] })
  readonly nodes: NodeDto[];
}
