import { ApiProperty } from '@nestjs/swagger';
import type { NodeView } from 'nestjs-process-notifications';
import type { ClusterNode } from 'process-notifications-contract';

export class NodeDto implements ClusterNode {
  @ApiProperty({ format: 'uuid', description: 'The node’s id: what an owner_unavailable problem and a refusal name.' })
  readonly node_id: string;

  @ApiProperty({ description: 'Base URL at which the other nodes reach it.' })
  readonly node_url: string;

  @ApiProperty({ description: 'Its heartbeat has not expired.' })
  readonly live: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null on SQLite (one process, no heartbeat).' })
  readonly last_heartbeat_at: string | null;

  @ApiProperty({ type: 'integer', description: 'Sessions it owns (on SQLite: every session).' })
  readonly sessions: number;

  static from(view: NodeView): NodeDto {
    return {
      node_id: view.nodeId,
      node_url: view.nodeUrl,
      live: view.live,
      last_heartbeat_at: view.lastHeartbeatAt,
      sessions: view.sessions,
    };
  }
}
