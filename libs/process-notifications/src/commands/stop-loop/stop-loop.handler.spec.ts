import { ValidationError } from '../../errors/validation.error.js';
import type { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { LoopNotFoundError } from '../../errors/loop-not-found.error.js';
import type { Loops } from '../../loops/loops.service.js';
import { ProcessLoop } from '../../loops/process-loop.js';
import { SessionEntity } from '../../persistence/sessions/session.entity.js';
import { StopLoopCommand } from './stop-loop.command.js';
import { StopLoopHandler } from './stop-loop.handler.js';

const SESSION = '0190c4f2-8f3a-7b1c-9d2e-3f4a5b6c7d8e';
const LOOP = '0190c4f2-9000-7b1c-9d2e-3f4a5b6c7d8e';

const session = Object.assign(new SessionEntity(), {
  sessionId: SESSION,
  tokenHash: 'hash',
  createdAt: '2026-12-05T00:00:00.000Z',
  closedAt: null,
});

// Ownership handing out the session, and Loops stopping a real loop actor (or not finding it).
function collaborators(loop: ProcessLoop | undefined) {
  const asked: unknown[][] = [];
  const ownership = { ownOpen: (id: string) => (asked.push(['ownOpen', id]), Promise.resolve(session)) } as unknown as SessionOwnership;
  const loops = {
    stop: (owned: SessionEntity, loopId: string) => {
      asked.push(['stop', owned.sessionId, loopId]);
      if (!loop) return Promise.reject(new LoopNotFoundError(owned.sessionId, loopId));
      loop.stop();
      return Promise.resolve(loop);
    },
  } as unknown as Loops;
  return { asked, handler: new StopLoopHandler(ownership, loops) };
}

describe('StopLoopHandler', () => {
  it("hands the command's loop id to Loops with the owned session and answers the stopped loop's view", async () => {
    const { asked, handler } = collaborators(new ProcessLoop(SESSION, LOOP, 'native', 'running', 8));
    await expect(handler.execute(new StopLoopCommand(SESSION, LOOP.toUpperCase()))).resolves.toMatchObject({
      sessionId: SESSION,
      loopId: LOOP,
      state: 'stopped',
    });
    expect(asked).toEqual([
      ['ownOpen', SESSION],
      ['stop', SESSION, LOOP],
    ]);
  });

  it("lets Loops' typed error through as it is", async () => {
    const { handler } = collaborators(undefined);
    await expect(handler.execute(new StopLoopCommand(SESSION, LOOP))).rejects.toBeInstanceOf(LoopNotFoundError);
  });

  it('is refused as invalid when built with an id that is no string, as the service refuses it', () => {
    expect(() => new StopLoopCommand(1 as unknown as string, LOOP)).toThrow(
      new ValidationError('session_id', 'session_id must be a string'),
    );
    expect(() => new StopLoopCommand(SESSION, null as unknown as string)).toThrow(
      new ValidationError('loop_id', 'loop_id must be a string'),
    );
  });
});
