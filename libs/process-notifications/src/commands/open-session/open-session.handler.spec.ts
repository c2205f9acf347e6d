import { AlreadyExistsError } from '../../errors/already-exists.error.js';
import { SessionEntity } from '../../persistence/sessions/session.entity.js';
import type { Sessions } from '../../sessions/sessions.service.js';
import { OpenSessionCommand } from './open-session.command.js';
import { OpenSessionHandler } from './open-session.handler.js';

const ID = '0190c4f2-8f3a-7b1c-9d2e-3f4a5b6c7d8e';

// Sessions, recording what it is asked: it checks and lower-cases the id, the handler does not.
function sessionsOpening(answer: (id?: string) => Promise<{ session: SessionEntity; token: string }>) {
  const asked: Array<string | undefined> = [];
  const sessions = {
    open: (id?: string) => {
      asked.push(id);
      return answer(id);
    },
  } as unknown as Sessions;
  return { asked, handler: new OpenSessionHandler(sessions) };
}

function entity(sessionId: string): SessionEntity {
  return Object.assign(new SessionEntity(), { sessionId, tokenHash: 'hash', createdAt: '2026-12-05T00:00:00.000Z', closedAt: null });
}

describe('OpenSessionHandler', () => {
  it("hands the command's id, or none, to Sessions and answers the id it opened with the token", async () => {
    const { asked, handler } = sessionsOpening(async (id) => ({ session: entity(id?.toLowerCase() ?? ID), token: 'tok' }));
    await expect(handler.execute(new OpenSessionCommand(ID.toUpperCase()))).resolves.toEqual({ sessionId: ID, token: 'tok' });
    await expect(handler.execute(new OpenSessionCommand())).resolves.toEqual({ sessionId: ID, token: 'tok' });
    expect(asked).toEqual([ID, undefined]);
  });

  it("lets Sessions' typed error through as it is", async () => {
    const refused = new AlreadyExistsError('session', ID);
    const { handler } = sessionsOpening(() => Promise.reject(refused));
    await expect(handler.execute(new OpenSessionCommand(ID))).rejects.toBe(refused);
  });
});
