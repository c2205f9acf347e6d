import { ApiProperty } from '@nestjs/swagger';
import { NodeDto } from './node.dto.js';

export class NodesDto {
  @ApiProperty({ type: [NodeDto] })
  readonly nodes: NodeDto[];
}
