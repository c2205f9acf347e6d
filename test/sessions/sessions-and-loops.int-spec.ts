import { AlreadyExistsError, LoopNotFoundError, SessionNotFoundError, ValidationError } from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import { createTestApp } from '../support/test-app.js';

describe('sessions and loops', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  beforeEach(async () => (app = await createTestApp({ loopCapacity: 8 })));
  afterEach(() => app.close());

  it('opens a session with a given or generated id, once', async () => {
    const given = randomUUID().toUpperCase();
    await expect(app.service.openSession(given)).resolves.toMatchObject({ sessionId: given.toLowerCase() });
    await expect(app.service.openSession(given.toLowerCase())).rejects.toBeInstanceOf(AlreadyExistsError);
    const generated = await app.service.openSession();
    expect(generated.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(app.service.openSession('not-a-uuid')).rejects.toMatchObject({ code: 'invalid_field', field: 'session_id' });
    await expect(app.service.openSession('00000000-0000-0000-0000-000000000000')).rejects.toBeInstanceOf(ValidationError);
  });

  it('authenticates a session token, and nothing else', async () => {
    const { sessionId, token } = await app.service.openSession();
    const other = await app.service.openSession();
    expect(token.length).toBeGreaterThanOrEqual(22); // at least 128 bits, base64url
    expect(await app.service.authenticate(token)).toBe(sessionId);
    expect(await app.service.authenticate(other.token)).toBe(other.sessionId);
    expect(await app.service.authenticate(`${token}x`)).toBeUndefined();
    expect(await app.service.authenticate('')).toBeUndefined();
  });

  it('opens, lists and stops loops', async () => {
    const { sessionId } = await app.service.openSession();
    const native = await app.service.openLoop(sessionId);
    const foreign = await app.service.openLoop(sessionId, { engine: 'foreign', loopId: randomUUID() });
    expect(native).toMatchObject({ sessionId, engine: 'native', state: 'running', capacity: 8, pending: 0 });
    expect(foreign).toMatchObject({ engine: 'foreign', state: 'running' });
    expect((await app.service.getSession(sessionId)).loops.map((l) => l.loopId)).toEqual([native.loopId, foreign.loopId]);
    await expect(app.service.openLoop(sessionId, { loopId: native.loopId })).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(app.service.openLoop(sessionId, { loopId: 'x' })).rejects.toMatchObject({ field: 'loop_id' });
    await expect(app.service.openLoop(sessionId, { engine: 'other' as never })).rejects.toMatchObject({ field: 'engine' });
    await expect(app.service.openLoop(randomUUID())).rejects.toBeInstanceOf(SessionNotFoundError);

    await expect(app.service.stopLoop(sessionId, native.loopId)).resolves.toMatchObject({ state: 'stopped' });
    await expect(app.service.stopLoop(sessionId, native.loopId)).resolves.toMatchObject({ state: 'stopped' });
    await expect(app.service.getLoop(sessionId, randomUUID())).rejects.toThrow(LoopNotFoundError);
    await expect(app.service.getLoop(sessionId.toUpperCase(), native.loopId.toUpperCase())).resolves.toMatchObject({
      loopId: native.loopId,
    });
  });

  it('answers ids that are not strings with a validation error, not a crash', async () => {
    const { sessionId } = await app.service.openSession();
    await expect(app.service.getSession(5 as never)).rejects.toThrow(expect.objectContaining({ field: 'session_id' }));
    await expect(app.service.getLoop(sessionId, null as never)).rejects.toThrow(expect.objectContaining({ field: 'loop_id' }));
    await expect(app.service.openSession(7 as never)).rejects.toMatchObject({ field: 'session_id' });
    await expect(app.service.openLoop(sessionId, { loopId: {} as never })).rejects.toMatchObject({ field: 'loop_id' });
  });

  it('refuses a loop capacity that is not a positive integer at start', async () => {
    for (const loopCapacity of [0, -1, 1.5, Number.NaN]) {
      await expect(createTestApp({ loopCapacity })).rejects.toThrow(/loopCapacity must be a positive integer/);
    }
  });
});
