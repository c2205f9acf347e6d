import { ValidationError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { LIFECYCLE_VECTORS as vectors } from '../support/lifecycle-vectors.js';
import { createTestApp } from '../support/test-app.js';

const sessionId = vectors[0]!.input.session_id as string;
// The module below opens this one session; a vector for another would fail for the wrong reason.
if (vectors.some((vector) => vector.input.session_id !== sessionId)) throw new Error('the lifecycle vectors must all name one session');

describe('lifecycle validation vectors (through the real module)', () => {
  let service: ProcessNotificationsService;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ service, close } = await createTestApp());
    await service.openSession(sessionId);
  });

  afterAll(() => close());

  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', async (_name, { input, field }) => {
    const publication = service.publishProcessLifecycle(sessionId, input);
    if (field === null) {
      await expect(publication).resolves.toMatchObject({ eventId: input.event_id, appended: true });
    } else {
      await expect(publication).rejects.toThrow(ValidationError);
      await expect(publication).rejects.toMatchObject({ code: 'invalid_field', field });
    }
  });

  it('journaled exactly the valid records, each once', async () => {
    const valid = vectors.filter((vector) => vector.field === null).map((vector) => vector.input.event_id);
    const journal = await service.readJournal(sessionId, 0, 1000);
    expect(journal.map((record) => record.idempotencyId)).toEqual(valid);
  });
});
