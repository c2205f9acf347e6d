import type { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { SessionClosedError } from '../../errors/session-closed.error.js';
import { SessionEntity } from '../../persistence/sessions/session.entity.js';
import type { Sessions } from '../../sessions/sessions.service.js';
import { RotateSessionTokenCommand } from './rotate-session-token.command.js';
import { RotateSessionTokenHandler } from './rotate-session-token.handler.js';

const ID = '0190c4f2-8f3a-7b1c-9d2e-3f4a5b6c7d8e';

function entity(closedAt: string | null): SessionEntity {
  return Object.assign(new SessionEntity(), { sessionId: ID, tokenHash: 'hash', createdAt: '2026-12-05T00:00:00.000Z', closedAt });
}

// Ownership and Sessions, recording the calls in order: ownOpen refuses a closed session as the real one does.
function collaborators(session: SessionEntity) {
  const calls: string[] = [];
  const ownership = {
    own: (id: string) => (calls.push(`own ${id}`), Promise.resolve(session)),
    ownOpen: (id: string) => {
      calls.push(`ownOpen ${id}`);
      return session.closedAt ? Promise.reject(new SessionClosedError(session.sessionId, session.closedAt)) : Promise.resolve(session);
    },
  } as unknown as SessionOwnership;
  const sessions = {
    rotateToken: (rotated: SessionEntity) => (calls.push(`rotateToken ${rotated.sessionId}`), Promise.resolve('new-token')),
  } as unknown as Sessions;
  return { calls, handler: new RotateSessionTokenHandler(ownership, sessions) };
}

describe('RotateSessionTokenHandler', () => {
  it('takes the open session over, then rotates the token of the session it got', async () => {
    const { calls, handler } = collaborators(entity(null));
    await expect(handler.execute(new RotateSessionTokenCommand(ID.toUpperCase()))).resolves.toEqual({ sessionId: ID, token: 'new-token' });
    expect(calls).toEqual([`ownOpen ${ID}`, `rotateToken ${ID}`]);
  });

  it('lets SessionClosedError through and rotates nothing', async () => {
    const { calls, handler } = collaborators(entity('2026-12-05T01:00:00.000Z'));
    await expect(handler.execute(new RotateSessionTokenCommand(ID))).rejects.toBeInstanceOf(SessionClosedError);
    expect(calls).toEqual([`ownOpen ${ID}`]);
  });
});
