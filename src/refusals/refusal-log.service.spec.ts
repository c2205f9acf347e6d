import {
  DeliveryStoppedError,
  IdempotencyCollisionError,
  JournalUnavailableError,
  REFUSAL_RETENTION,
  RefusalStore,
  ValidationError,
} from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import { createTestApp } from '../../test/support/test-app.js';
import { RefusalLog } from './refusal-log.service.js';

// The log over the real store, on an in-memory SQLite database of each test's own.
describe('RefusalLog', () => {
  const sessionId = randomUUID();
  let close: () => Promise<void>;
  let log: RefusalLog;
  beforeEach(async () => {
    const app = await createTestApp();
    close = app.close;
    log = new RefusalLog(app.moduleRef.get(RefusalStore));
  });
  afterEach(() => close());

  it('keeps the newest refusals up to the retention, newest first, stored or not yet', async () => {
    const ids = Array.from({ length: REFUSAL_RETENTION + 250 }, () => randomUUID());
    for (const id of ids) log.record('completion', sessionId, { command_id: id }, new IdempotencyCollisionError(id, 1, ['state']));
    await log.flush();
    const kept = await log.recent(REFUSAL_RETENTION + 250);
    expect(kept).toHaveLength(REFUSAL_RETENTION);
    expect(kept.map((refusal) => refusal.commandId)).toEqual(ids.slice(-REFUSAL_RETENTION).reverse());
    const extra = randomUUID();
    log.record('completion', sessionId, { command_id: extra }, new IdempotencyCollisionError(extra, 2));
    expect((await log.recent(3)).map((refusal) => refusal.commandId)).toEqual([extra, ...ids.slice(-2).reverse()]);
  });

  it('holds ids, the collision original and the differing field names only: nothing else of the body', async () => {
    const token = 'secret-session-token';
    const commandId = randomUUID();
    log.record(
      'completion',
      sessionId,
      { command_id: 'not-a-uuid', loop_id: randomUUID(), token, process_handle: 'p' },
      new DeliveryStoppedError('l', 'inbox_full'),
    );
    log.record(
      'completion',
      sessionId,
      { command_id: commandId, process_handle: token },
      new IdempotencyCollisionError(commandId, 7, ['process_handle']),
    );
    await log.flush();
    const [collision, stopped] = await log.recent(10);
    expect(Object.keys(stopped!).sort()).toEqual([
      'at',
      'cause',
      'code',
      'commandId',
      'differingFields',
      'eventId',
      'loopId',
      'nodeId',
      'originalSequence',
      'sessionId',
    ]);
    expect(stopped).toMatchObject({
      code: 'delivery_stopped',
      cause: 'inbox_full',
      commandId: null,
      eventId: null,
      originalSequence: null,
    });
    expect(collision).toMatchObject({ code: 'idempotency_collision', commandId, originalSequence: 7, differingFields: ['process_handle'] });
    expect(JSON.stringify(await log.recent(10))).not.toContain(token);
    expect((await log.ofCommand(commandId)).map((refusal) => refusal.code)).toEqual(['idempotency_collision']);
  });

  it('lists only the refusal codes of the contract', async () => {
    log.record('lifecycle', sessionId, {}, new ValidationError('kind'));
    log.record('lifecycle', sessionId, {}, new JournalUnavailableError(new Error('disk full')));
    log.record('lifecycle', sessionId, {}, new Error('unexpected'));
    await log.flush();
    expect(await log.recent(10)).toEqual([]);
  });
});
