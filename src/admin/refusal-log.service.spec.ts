import { DeliveryStoppedError, IdempotencyCollisionError, JournalUnavailableError, ValidationError } from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import { MAX_REFUSALS, RefusalLog } from './refusal-log.service.js';

describe('RefusalLog', () => {
  const sessionId = randomUUID();

  it('keeps the last 1,000 refusals, newest first', () => {
    const log = new RefusalLog();
    const ids = Array.from({ length: MAX_REFUSALS + 250 }, () => randomUUID());
    for (const id of ids) log.record('completion', sessionId, { command_id: id }, new IdempotencyCollisionError(id, 1));
    const kept = log.recent(MAX_REFUSALS + 250);
    expect(kept).toHaveLength(MAX_REFUSALS);
    expect(kept.map((refusal) => refusal.commandId)).toEqual(ids.slice(-MAX_REFUSALS).reverse());
    expect(log.recent(3).map((refusal) => refusal.commandId)).toEqual(ids.slice(-3).reverse());
  });

  it('holds ids only: nothing else of the body, and no id that is not a UUID', () => {
    const log = new RefusalLog();
    const token = 'secret-session-token';
    log.record(
      'completion',
      sessionId,
      { command_id: 'not-a-uuid', loop_id: randomUUID(), token, process_handle: 'p' },
      new DeliveryStoppedError('l', 'inbox_full'),
    );
    const [refusal] = log.recent(10);
    expect(Object.keys(refusal!).sort()).toEqual(['at', 'cause', 'code', 'commandId', 'eventId', 'loopId', 'sessionId']);
    expect(refusal).toMatchObject({ code: 'delivery_stopped', cause: 'inbox_full', commandId: null, eventId: null });
    expect(JSON.stringify(log.recent(10))).not.toContain(token);
  });

  it('lists only the refusal codes of the contract', () => {
    const log = new RefusalLog();
    log.record('lifecycle', sessionId, {}, new ValidationError('kind'));
    log.record('lifecycle', sessionId, {}, new JournalUnavailableError(new Error('disk full')));
    log.record('lifecycle', sessionId, {}, new Error('unexpected'));
    expect(log.recent(10)).toEqual([]);
  });
});
