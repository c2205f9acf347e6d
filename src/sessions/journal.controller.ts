import { Controller, Get, Inject, Param, Query, Req, Sse, StreamableFile, type MessageEvent } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import { LAST_EVENT_ID_HEADER, MAX_JOURNAL_PAGE } from 'process-notifications-contract';
import type { FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { ApiProblems, AUTH_PROBLEMS } from '../http/api-problems.decorator.js';
import { IntegerPipe } from '../http/integer.pipe.js';
import { RequestHeader } from '../http/request-header.decorator.js';
import { bearerToken } from '../http/bearer-auth.guard.js';
import { RequestPrincipal, type Principal } from '../http/principal.js';
import { untilRevoked } from './revocable-stream.js';
import { UuidParamPipe } from '../http/uuid-param.pipe.js';
import { JournalPageDto } from './dto/journal-page.dto.js';
import { JournalRecordDto } from './dto/journal-record.dto.js';
import { withKeepAlive } from './keep-alive.js';
import { journalPageBody } from './journal-page-body.js';
import { SessionEventStream } from './session-event-stream.service.js';
import { AnyNode } from '../cluster/owner-routed.decorator.js';
import { loopMessageEvent } from './dto/loop-event.dto.js';
import { drainedOf, MAX_PENDING_EVENT_CHARS } from './slow-reader.js';
import { writesPerTurn } from './writes-per-turn.js';

// A sequence the client may leave out: -1 when absent (no client can send it).
const position = (field: string): IntegerPipe => new IntegerPipe(field, { default: -1, min: 0, max: Number.MAX_SAFE_INTEGER });
const sequence = (field: string): IntegerPipe => new IntegerPipe(field, { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER });

@ApiTags(API_TAGS.journal.name)
@ApiBearerAuth()
@ApiParam({ name: 'sid', format: 'uuid', description: 'Session id.' })
@Controller('v1/sessions/:sid')
export class JournalController {
  constructor(
    private readonly service: ProcessNotificationsService,
    private readonly stream: SessionEventStream,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  @Get('journal')
  @ApiOperation({
    summary: 'Read the session journal',
    description:
      "The session's journal records after sequence `after`, at most `limit` (up to 1000), in sequence order, and the `next_after` to read on from. Served by any node, from the database.",
  })
  @AnyNode()
  @ApiQuery({ name: 'after', required: false, type: 'integer', description: 'Records after this sequence (default 0).' })
  @ApiQuery({
    name: 'limit',
    required: false,
    type: 'integer',
    description: `At most this many records (default 100, at most ${MAX_JOURNAL_PAGE}).`,
  })
  @ApiOkResponse({ type: JournalPageDto })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'journal_unavailable')
  async journal(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Query('after', sequence('after')) after: number,
    @Query('limit', new IntegerPipe('limit', { default: 100, min: 1, max: MAX_JOURNAL_PAGE })) limit: number,
  ): Promise<StreamableFile> {
    const records = await this.service.readJournal(sessionId, after, limit);
    const page: JournalPageDto = {
      records: records.map((record) => JournalRecordDto.from(record)),
      next_after: records.at(-1)?.sequence ?? after,
    };
    // Serialized a chunk at a time, so that a large page does not hold up other requests.
    return new StreamableFile(journalPageBody(page), { type: 'application/json; charset=utf-8' });
  }

  // A client that stops reading is dropped once this much waits for it (issue 45).
  @Sse('events', { maxPendingDataLength: MAX_PENDING_EVENT_CHARS })
  @ApiOperation({
    summary: 'Stream the session journal (SSE)',
    description:
      "The session's journal records as server-sent events, each `id:` its sequence, replaying from after `Last-Event-ID` and then following new commits; a `: keep-alive` comment at least every 15 s. Served by any node.",
  })
  @AnyNode()
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: LAST_EVENT_ID_HEADER, required: false, description: 'Resume after this sequence.' })
  @ApiOkResponse({
    description:
      'Journal records as server-sent events: `id` is the sequence, `data` a journal record (JSON); a `: keep-alive` comment at least every 15 s. A stream opened with a session token ends within one keep-alive interval once that token is rotated or the session closed.',
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example: 'id: 1\ndata: {"sequence":1,"kind":"process_notification",...}\n\n: keep-alive\n\n',
      },
    },
  })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'stream_limit_reached')
  async events(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @RequestHeader(LAST_EVENT_ID_HEADER, sequence('last_event_id')) after: number,
    @RequestPrincipal() principal: Principal,
    @RequestHeader('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<Observable<MessageEvent>> {
    // Throws session_not_found while a problem document can still be sent; any node serves it.
    await this.service.requireSession(sessionId);
    const records = this.stream
      // The console's streams (admin token) have a bound of their own; a catch-up waits for the socket.
      .recordsAfter(sessionId, after, principal.kind === 'admin', drainedOf(request.raw.socket))
      .pipe(
        map((record): MessageEvent => ({ id: String(record.sequence), data: JournalRecordDto.from(record) })),
        writesPerTurn(request.raw.socket),
      );
    return this.endedOnRevocation(withKeepAlive(records, this.config.sseKeepAliveMs), principal, authorization);
  }

  // A stream opened with a session's token ends once that token is rotated or the session closed.
  private endedOnRevocation(
    stream: Observable<MessageEvent>,
    principal: Principal,
    authorization: string | undefined,
  ): Observable<MessageEvent> {
    if (principal.kind === 'admin') return stream;
    const token = bearerToken(authorization) ?? '';
    const stillOpens = async (): Promise<boolean> => (await this.service.authenticate(token)) === principal.sessionId;
    return untilRevoked(stream, stillOpens, this.config.sseKeepAliveMs);
  }

  /**
   * A loop's own stream (issue 37). Served by whichever node receives it, from the database, like
   * the session's stream: an event stream cannot be relayed by the forwarding of owner-routed
   * requests (which buffers a whole answer), and a consume does not need the owner to have
   * dispatched what the stream gave (see docs/architecture.md).
   */
  @Sse('loops/:lid/events', { maxPendingDataLength: MAX_PENDING_EVENT_CHARS })
  @ApiOperation({
    summary: "Stream a loop's notifications (SSE)",
    description:
      "What a loop follows to get its work: its own `notification`, `outcome` and `consumed` events, each `id:` a journal sequence. Resumes after `Last-Event-ID` or `?after=N`; without either it starts at the loop's oldest unconsumed notification.",
  })
  @AnyNode()
  @ApiParam({ name: 'lid', format: 'uuid', description: 'Loop id.' })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: LAST_EVENT_ID_HEADER, required: false, description: 'Resume after this sequence.' })
  @ApiQuery({ name: 'after', required: false, type: 'integer', description: 'Resume after this sequence (when no Last-Event-ID).' })
  @ApiOkResponse({
    description:
      "The loop's events as server-sent events, `id` the journal sequence: `event: notification` (a pending-view entry, its outcome " +
      'if journaled before it), `event: outcome` (the same entry with its outcome, journaled after the notification), `event: consumed` ' +
      "(`{command_id, sequence}`). Without a position it starts at the loop's oldest unconsumed notification. A `: keep-alive` comment at least every 15 s.",
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example: 'id: 7\nevent: notification\ndata: {"command_id":"...","sequence":7,"outcome":null,...}\n\n',
      },
    },
  })
  @ApiProblems('invalid_field', ...AUTH_PROBLEMS, 'session_not_found', 'loop_not_found', 'stream_limit_reached')
  async loopEvents(
    @Param('sid', new UuidParamPipe('session_id')) sessionId: string,
    @Param('lid', new UuidParamPipe('loop_id')) loopId: string,
    @RequestHeader(LAST_EVENT_ID_HEADER, position('last_event_id')) lastEventId: number,
    @Query('after', position('after')) afterQuery: number,
    @RequestPrincipal() principal: Principal,
    @RequestHeader('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<Observable<MessageEvent>> {
    // Throws session_not_found or loop_not_found while a problem document can still be sent.
    const start = await this.service.loopEventsStart(sessionId, loopId);
    const after = lastEventId >= 0 ? lastEventId : afterQuery >= 0 ? afterQuery : start;
    const events = this.stream
      .loopEventsAfter(sessionId, loopId, after, principal.kind === 'admin')
      .pipe(map(loopMessageEvent), writesPerTurn(request.raw.socket));
    return this.endedOnRevocation(withKeepAlive(events, this.config.sseKeepAliveMs), principal, authorization);
  }
}
