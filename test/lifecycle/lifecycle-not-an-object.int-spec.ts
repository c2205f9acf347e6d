import { ValidationError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { rejection } from '../support/rejection.js';
import { createTestApp } from '../support/test-app.js';

// Spec §6: fields are checked in table order and a missing field fails on that field, so an
// input that is not an object at all (an embedder's undefined, null, a string) carries none of
// them and fails on the first, `event_id`; the owner check only looks at a `session_id` it has.
describe('publishing a lifecycle "record" that is not an object', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>;
  let service: ProcessNotificationsService;
  let sessionId: string;

  beforeEach(async () => {
    app = await createTestApp();
    service = app.service;
    ({ sessionId } = await service.openSession());
  });
  afterEach(() => app.close());

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'started'],
    ['a number', 42],
  ])('%s fails validation on event_id', async (_name, input) => {
    const error = await rejection(service.publishProcessLifecycle(sessionId, input));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_field', field: 'event_id' });
  });
});
