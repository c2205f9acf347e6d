import type { SessionOwnership } from '../../cluster/session-ownership.service.js';
import { OwnerUnavailableError } from '../../errors/owner-unavailable.error.js';
import { SessionEntity } from '../../persistence/sessions/session.entity.js';
import type { Sessions } from '../../sessions/sessions.service.js';
import { CloseSessionCommand } from './close-session.command.js';
import { CloseSessionHandler } from './close-session.handler.js';

const ID = '0190c4f2-8f3a-7b1c-9d2e-3f4a5b6c7d8e';
const CLOSED_AT = '2026-12-05T01:00:00.000Z';

function entity(closedAt: string | null): SessionEntity {
  return Object.assign(new SessionEntity(), { sessionId: ID, tokenHash: null, createdAt: '2026-12-05T00:00:00.000Z', closedAt });
}

// Ownership answering `own` (a closed session too, as the real one does), and Sessions closing
// as the real one does: a closed session answers its close time, an open one is closed now.
function collaborators(own: () => Promise<SessionEntity>) {
  const calls: string[] = [];
  const ownership = {
    own: (id: string) => (calls.push(`own ${id}`), own()),
  } as unknown as SessionOwnership;
  const sessions = {
    close: (session: SessionEntity) => (calls.push(`close ${session.sessionId}`), Promise.resolve(session.closedAt ?? CLOSED_AT)),
  } as unknown as Sessions;
  return { calls, handler: new CloseSessionHandler(ownership, sessions) };
}

describe('CloseSessionHandler', () => {
  it('takes the session over with own, not ownOpen, so a second close answers the first one', async () => {
    const earlier = '2026-12-04T00:00:00.000Z';
    const { calls, handler } = collaborators(() => Promise.resolve(entity(earlier)));
    await expect(handler.execute(new CloseSessionCommand(ID))).resolves.toEqual({ sessionId: ID, state: 'closed', closedAt: earlier });
    expect(calls).toEqual([`own ${ID}`, `close ${ID}`]);
  });

  it('answers the close time Sessions committed', async () => {
    const { handler } = collaborators(() => Promise.resolve(entity(null)));
    await expect(handler.execute(new CloseSessionCommand(ID))).resolves.toEqual({ sessionId: ID, state: 'closed', closedAt: CLOSED_AT });
  });

  it("lets the owner's typed error through and closes nothing", async () => {
    const elsewhere = new OwnerUnavailableError(ID, 1, 'owned by another node');
    const { calls, handler } = collaborators(() => Promise.reject(elsewhere));
    await expect(handler.execute(new CloseSessionCommand(ID))).rejects.toBe(elsewhere);
    expect(calls).toEqual([`own ${ID}`]);
  });
});
