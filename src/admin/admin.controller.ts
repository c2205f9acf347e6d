import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import {
  AdminQueries,
  DEFAULT_ADMIN_PAGE,
  DEFAULT_STALE_SECONDS,
  LOOP_FILTERS,
  MAX_ADMIN_PAGE,
  type LoopFilter,
} from 'nestjs-process-notifications';
import type { FastifyRequest } from 'fastify';
import { AdminOnly } from '../http/admin-only.decorator.js';
import { ApiProblems, AUTH_PROBLEMS } from '../http/api-problems.decorator.js';
import { IntegerPipe } from '../http/integer.pipe.js';
import { QueryStringPipe } from '../http/query-string.pipe.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { AdminLoopDto } from './dto/admin-loop.dto.js';
import { AdminLoopsPageDto } from './dto/admin-loops-page.dto.js';
import { AdminSessionDto } from './dto/admin-session.dto.js';
import { AdminSessionsPageDto } from './dto/admin-sessions-page.dto.js';
import { NodeDto } from './dto/node.dto.js';
import { NodesDto } from './dto/nodes.dto.js';
import { NotificationLocationDto } from './dto/notification-location.dto.js';
import { NotificationLocationsDto } from './dto/notification-locations.dto.js';
import { RefusalDto } from './dto/refusal.dto.js';
import { RefusalsDto } from './dto/refusals.dto.js';
import { RefusalLog } from '../refusals/refusal-log.service.js';

const limit = (): IntegerPipe => new IntegerPipe('limit', { default: DEFAULT_ADMIN_PAGE, min: 1, max: MAX_ADMIN_PAGE });
const LIMIT_QUERY = {
  name: 'limit',
  required: false,
  type: 'integer',
  description: `At most this many items (1 to ${MAX_ADMIN_PAGE}, default ${DEFAULT_ADMIN_PAGE}).`,
} as const;
const CURSOR_QUERY = {
  name: 'cursor',
  required: false,
  type: String,
  description: '`next_cursor` of the previous page, as it is (opaque).',
} as const;

/**
 * The operator's read API across sessions (spec section 12.1), admin token only. Everything is
 * read from the database (the refusals too, but for the few this node has not stored yet), so every node of a
 * cluster answers alike and nothing here is forwarded to a session's owner.
 */
@ApiTags(API_TAGS.admin.name)
@ApiBearerAuth()
@AdminOnly()
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly admin: AdminQueries,
    private readonly refusals: RefusalLog,
  ) {}

  @Get('sessions')
  @ApiOperation({
    summary: 'List sessions',
    description:
      'The admin token only. Every session, newest first, with its state, loop counts, unconsumed notifications and last journal sequence; paged by `limit` and `cursor`.',
  })
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery(CURSOR_QUERY)
  @ApiOkResponse({ type: AdminSessionsPageDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'journal_unavailable')
  async sessions(
    @Query('limit', limit()) pageLimit: number,
    @Query('cursor', new QueryStringPipe('cursor')) cursor: string | undefined,
  ): Promise<AdminSessionsPageDto> {
    const page = await this.admin.sessions({ limit: pageLimit, cursor });
    return { sessions: page.items.map((view) => AdminSessionDto.from(view)), next_cursor: page.nextCursor };
  }

  @Get('loops')
  @ApiOperation({
    summary: 'List loops',
    description:
      'The admin token only. Loops, newest first, with their unconsumed counts: all, or those `unconsumed`, `full`, `stopped` with work left or `stale` (`older_than_s`), optionally of one session; paged by `limit` and `cursor`.',
  })
  @ApiQuery({ name: 'filter', required: false, enum: LOOP_FILTERS, description: 'Which loops (default all).' })
  @ApiQuery({
    name: 'older_than_s',
    required: false,
    type: 'integer',
    description: `For stale: oldest unconsumed notification older than this many seconds (at least 1, default ${DEFAULT_STALE_SECONDS}).`,
  })
  @ApiQuery({ name: 'session_id', required: false, type: String, description: 'Only this session’s loops.' })
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery(CURSOR_QUERY)
  @ApiOkResponse({ type: AdminLoopsPageDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'journal_unavailable')
  async loops(
    @Query('filter', new QueryStringPipe('filter')) filter: string | undefined,
    @Query('older_than_s', new IntegerPipe('older_than_s', { default: DEFAULT_STALE_SECONDS, min: 1, max: Number.MAX_SAFE_INTEGER }))
    olderThanSeconds: number,
    @Query('session_id', new QueryStringPipe('session_id')) sessionId: string | undefined,
    @Query('limit', limit()) pageLimit: number,
    @Query('cursor', new QueryStringPipe('cursor')) cursor: string | undefined,
  ): Promise<AdminLoopsPageDto> {
    const page = await this.admin.loops({
      filter: filter as LoopFilter | undefined,
      olderThanSeconds,
      sessionId,
      limit: pageLimit,
      cursor,
    });
    return { loops: page.items.map((view) => AdminLoopDto.from(view)), next_cursor: page.nextCursor };
  }

  @Get('notifications/:command_id')
  @ApiOperation({
    summary: 'Locate a notification',
    description:
      'The admin token only. Every session that journaled this command id (its loop, sequence, payload fields, whether and when it was consumed, its outcome) and the refusals still kept that name it. `404 not_found` when no session journaled it.',
  })
  @ApiParam({ name: 'command_id', format: 'uuid', description: 'The notification’s command id.' })
  @ApiOkResponse({ type: NotificationLocationsDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'not_found', 'journal_unavailable')
  async notification(@Param('command_id', new UuidParamPipe('command_id')) commandId: string): Promise<NotificationLocationsDto> {
    // 404 not_found when no session journaled it (spec section 12.1), refused or not: the refusals
    // list (GET /v1/admin/refusals) still shows a delivery that was only refused.
    const [found, refusals] = await Promise.all([this.admin.findNotification(commandId), this.refusals.ofCommand(commandId)]);
    return {
      notifications: found.map((view) => NotificationLocationDto.from(view)),
      refusals: refusals.map((refusal) => RefusalDto.from(refusal)),
    };
  }

  @Get('nodes')
  @ApiOperation({
    summary: 'List nodes',
    description:
      'The admin token only. The nodes sharing the database, whether each is live, its last heartbeat and how many sessions it owns; on SQLite one node owning every session.',
  })
  @ApiOkResponse({ type: NodesDto })
  @ApiProblems(...AUTH_PROBLEMS, 'journal_unavailable')
  async nodes(@Req() request: FastifyRequest): Promise<NodesDto> {
    // On SQLite before main.ts advertised a URL (an embedding or a test): where this request came in.
    const nodes = await this.admin.nodes(`http://127.0.0.1:${request.raw.socket.localPort ?? ''}`);
    return { nodes: nodes.map((view) => NodeDto.from(view)) };
  }

  @Get('refusals')
  @ApiOperation({
    summary: 'List recent refusals',
    description:
      'The admin token only. The newest refusals of the whole cluster (collisions, stopped deliveries, owner mismatches, unknown loops or engines), newest first, each with the node that answered; not paged.',
  })
  @ApiQuery(LIMIT_QUERY)
  @ApiOkResponse({ type: RefusalsDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'journal_unavailable')
  async refusalList(@Query('limit', limit()) count: number): Promise<RefusalsDto> {
    return { refusals: (await this.refusals.recent(count)).map((refusal) => RefusalDto.from(refusal)) };
  }
}
