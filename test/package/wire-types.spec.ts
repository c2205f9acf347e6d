import type * as wire from 'process-notifications-contract';
import type { ProcessCompletionNotificationDto, ProcessLifecycleRecordDto } from 'nestjs-process-notifications';
import type { AdminLoopDto } from '../../src/admin/dto/admin-loop.dto.js';
import type { AdminLoopsPageDto } from '../../src/admin/dto/admin-loops-page.dto.js';
import type { AdminSessionDto } from '../../src/admin/dto/admin-session.dto.js';
import type { AdminSessionsPageDto } from '../../src/admin/dto/admin-sessions-page.dto.js';
import type { NodeDto } from '../../src/admin/dto/node.dto.js';
import type { NodesDto } from '../../src/admin/dto/nodes.dto.js';
import type { NotificationLocationDto } from '../../src/admin/dto/notification-location.dto.js';
import type { NotificationLocationsDto } from '../../src/admin/dto/notification-locations.dto.js';
import type { RefusalDto } from '../../src/admin/dto/refusal.dto.js';
import type { RefusalsDto } from '../../src/admin/dto/refusals.dto.js';
import type { WhoamiDto } from '../../src/admin/dto/whoami.dto.js';
import type { ProblemDto } from '../../src/http/problem.dto.js';
import type { ConsumeBatchResultDto, ConsumeBatchResultsDto } from '../../src/sessions/dto/consume-batch-result.dto.js';
import type { ConsumptionDto } from '../../src/sessions/dto/consumption.dto.js';
import type { CreateSessionRequestDto } from '../../src/sessions/dto/create-session-request.dto.js';
import type { JournalPageDto } from '../../src/sessions/dto/journal-page.dto.js';
import type { JournalRecordDto } from '../../src/sessions/dto/journal-record.dto.js';
import type { LifecyclePublicationDto } from '../../src/sessions/dto/lifecycle-publication.dto.js';
import type { LoopDto } from '../../src/sessions/dto/loop.dto.js';
import type { OpenLoopRequestDto } from '../../src/sessions/dto/open-loop-request.dto.js';
import type { PendingNotificationDto } from '../../src/sessions/dto/pending-notification.dto.js';
import type { PendingNotificationsDto } from '../../src/sessions/dto/pending-notifications.dto.js';
import type { ProcessCompletionDeliveryDto } from '../../src/sessions/dto/process-completion-delivery.dto.js';
import type { ProcessOutcomeDto } from '../../src/sessions/dto/process-outcome.dto.js';
import type { SessionClosedDto } from '../../src/sessions/dto/session-closed.dto.js';
import type { SessionCreatedDto } from '../../src/sessions/dto/session-created.dto.js';
import type { SessionTokenDto } from '../../src/sessions/dto/session-token.dto.js';
import type { SessionDto } from '../../src/sessions/dto/session.dto.js';

// The contract package's wire types are what the clients are typed by; the server's DTOs are what
// it sends and takes (and what its OpenAPI document shows). Most DTOs `implements` their wire type
// (a field missing, or wider than the wire's, does not compile); this file adds what `implements`
// cannot see: a field the server has and the wire type lacks (or the other way round), and the wire
// types a class cannot implement (unions: a pending notification's pair, a journal record, an
// event of a loop's stream, a batch consume's result). `npm run typecheck` is where it fails.

/** Every field name of `T`, of each member when `T` is a union. */
type Fields<T> = T extends unknown ? keyof T : never;
/** `true` when `A` and `B` have the same field names. */
type SameFields<A, B> = [Fields<A>] extends [Fields<B>] ? ([Fields<B>] extends [Fields<A>] ? true : false) : false;
/** Fails to compile unless `A` and `B` have the same field names. */
const sameFields = <A, B>(same: SameFields<A, B>): boolean => same;

const checks = {
  // Requests.
  notification: sameFields<ProcessCompletionNotificationDto, wire.ProcessCompletionNotification>(true),
  lifecycleRecord: sameFields<ProcessLifecycleRecordDto, wire.LifecycleRecord>(true),
  createSession: sameFields<CreateSessionRequestDto, wire.CreateSessionRequest>(true),
  openLoop: sameFields<OpenLoopRequestDto, wire.OpenLoopRequest>(true),
  // Answers.
  sessionCreated: sameFields<SessionCreatedDto, wire.SessionCreated>(true),
  session: sameFields<SessionDto, wire.Session>(true),
  sessionToken: sameFields<SessionTokenDto, wire.SessionToken>(true),
  closedSession: sameFields<SessionClosedDto, wire.ClosedSession>(true),
  loop: sameFields<LoopDto, wire.Loop>(true),
  delivery: sameFields<ProcessCompletionDeliveryDto, wire.CompletionDelivery>(true),
  publication: sameFields<LifecyclePublicationDto, wire.LifecyclePublication>(true),
  outcome: sameFields<ProcessOutcomeDto, wire.ProcessOutcome>(true),
  pending: sameFields<PendingNotificationDto, wire.PendingNotification>(true),
  pendingSet: sameFields<PendingNotificationsDto, wire.PendingNotifications>(true),
  consumption: sameFields<ConsumptionDto, wire.Consumption>(true),
  consumeResult: sameFields<ConsumeBatchResultDto, wire.ConsumeResult>(true),
  consumeResults: sameFields<ConsumeBatchResultsDto, wire.ConsumeResults>(true),
  journalRecord: sameFields<JournalRecordDto, wire.JournalRecord>(true),
  journalPage: sameFields<JournalPageDto, wire.JournalPage>(true),
  problem: sameFields<ProblemDto, wire.Problem>(true),
  adminSession: sameFields<AdminSessionDto, wire.AdminSession>(true),
  adminSessions: sameFields<AdminSessionsPageDto, wire.AdminSessionsPage>(true),
  adminLoop: sameFields<AdminLoopDto, wire.AdminLoop>(true),
  adminLoops: sameFields<AdminLoopsPageDto, wire.AdminLoopsPage>(true),
  location: sameFields<NotificationLocationDto, wire.NotificationLocation>(true),
  locations: sameFields<NotificationLocationsDto, wire.NotificationLocations>(true),
  node: sameFields<NodeDto, wire.ClusterNode>(true),
  nodes: sameFields<NodesDto, wire.ClusterNodes>(true),
  refusal: sameFields<RefusalDto, wire.Refusal>(true),
  refusals: sameFields<RefusalsDto, wire.Refusals>(true),
  whoami: sameFields<WhoamiDto, wire.Whoami>(true),
  // The names of a loop stream's events are the contract's closed set.
  loopEventTypes: sameFields<Record<wire.LoopEvent['type'], true>, Record<wire.LoopEventType, true>>(true),
  // And the kinds of a token are those `whoami` answers.
  tokenKinds: sameFields<Record<wire.Whoami['kind'], true>, Record<wire.TokenKind, true>>(true),
};

// What the wire types allow, the server's DTOs take: a value of the wire type is one of the DTO
// type (the union types included, which the DTOs type field by field).
const fromWire = {
  notification: (value: wire.ProcessCompletionNotification): ProcessCompletionNotificationDto => value,
  pending: (value: wire.PendingNotification): PendingNotificationDto => value,
  consumeResult: (value: wire.ConsumeResult): ConsumeBatchResultDto => value,
  whoami: (value: wire.Whoami): WhoamiDto => value,
};

describe("the contract package's wire types", () => {
  it('have the fields of the DTOs the server sends and takes (checked when this file compiles)', () => {
    expect(Object.entries(checks).filter(([, same]) => !same)).toEqual([]);
    expect(Object.keys(fromWire).length).toBeGreaterThan(0);
  });
});
