import type { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { LoopLimitError } from '../../errors/loop-limit.error.js';
import { SessionClosedError } from '../../errors/session-closed.error.js';
import type { Loops } from '../../loops/loops.service.js';
import { ProcessLoop } from '../../loops/process-loop.js';
import { SessionEntity } from '../../persistence/sessions/session.entity.js';
import type { LoopEngine } from '../../vocabulary/process-vocabulary.js';
import { OpenLoopCommand } from './open-loop.command.js';
import { OpenLoopHandler } from './open-loop.handler.js';

const SESSION = '0190c4f2-8f3a-7b1c-9d2e-3f4a5b6c7d8e';
const LOOP = '0190c4f2-9000-7b1c-9d2e-3f4a5b6c7d8e';

const session = Object.assign(new SessionEntity(), {
  sessionId: SESSION,
  tokenHash: 'hash',
  createdAt: '2026-12-05T00:00:00.000Z',
  closedAt: null,
});

// Ownership handing out the session (or refusing it), and Loops opening a real loop actor.
function collaborators(ownOpen: () => Promise<SessionEntity>, open?: () => Promise<ProcessLoop>) {
  const asked: unknown[][] = [];
  const ownership = { ownOpen: (id: string) => (asked.push(['ownOpen', id]), ownOpen()) } as unknown as SessionOwnership;
  const loops = {
    open: (owned: SessionEntity, loopId?: string, engine?: LoopEngine) => {
      asked.push(['open', owned.sessionId, loopId, engine]);
      return open?.() ?? Promise.resolve(new ProcessLoop(owned.sessionId, loopId ?? LOOP, engine ?? 'native', 'running', 8));
    },
  } as unknown as Loops;
  return { asked, handler: new OpenLoopHandler(ownership, loops) };
}

describe('OpenLoopHandler', () => {
  it("hands the command's loop id and engine, or none, to Loops with the owned session, and answers the loop's view", async () => {
    const { asked, handler } = collaborators(() => Promise.resolve(session));
    await expect(handler.execute(new OpenLoopCommand(SESSION, LOOP, 'foreign'))).resolves.toEqual({
      sessionId: SESSION,
      loopId: LOOP,
      engine: 'foreign',
      state: 'running',
      capacity: 8,
      pending: 0,
    });
    await handler.execute(new OpenLoopCommand(SESSION.toUpperCase()));
    expect(asked).toEqual([
      ['ownOpen', SESSION],
      ['open', SESSION, LOOP, 'foreign'],
      ['ownOpen', SESSION],
      ['open', SESSION, undefined, undefined],
    ]);
  });

  it('lets a closed session refuse it before Loops is asked', async () => {
    const closed = new SessionClosedError(SESSION, '2026-12-05T01:00:00.000Z');
    const { asked, handler } = collaborators(() => Promise.reject(closed));
    await expect(handler.execute(new OpenLoopCommand(SESSION))).rejects.toBe(closed);
    expect(asked).toEqual([['ownOpen', SESSION]]);
  });

  it("lets Loops' typed error through as it is", async () => {
    const full = new LoopLimitError(SESSION, 8);
    const { handler } = collaborators(
      () => Promise.resolve(session),
      () => Promise.reject(full),
    );
    await expect(handler.execute(new OpenLoopCommand(SESSION))).rejects.toBe(full);
  });
});
