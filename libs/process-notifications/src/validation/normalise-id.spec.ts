import { ConsumeProcessNotificationCommand } from '../commands/consume-process-notification/consume-process-notification.command.js';
import { ConsumeProcessNotificationsCommand } from '../commands/consume-process-notification/consume-process-notifications.command.js';
import { NotifyProcessCompletionCommand } from '../commands/notify-process-completion/notify-process-completion.command.js';
import { PublishProcessLifecycleCommand } from '../commands/publish-process-lifecycle/publish-process-lifecycle.command.js';
import { normaliseId } from './normalise-id.js';

const UPPER = '0193A3F4-7B2C-7D41-9E8F-0123456789AB';
const LOWER = UPPER.toLowerCase();

describe('normaliseId', () => {
  it('lower-cases a string and hands anything else back for validation to refuse', () => {
    expect(normaliseId(UPPER)).toBe(LOWER);
    expect(normaliseId(LOWER)).toBe(LOWER);
    expect(normaliseId(42)).toBe(42);
    expect(normaliseId(undefined)).toBeUndefined();
  });

  it('is applied by the public commands, where an embedder’s ids enter through the command bus', () => {
    expect(new NotifyProcessCompletionCommand(UPPER, {}).sessionId).toBe(LOWER);
    expect(new PublishProcessLifecycleCommand(UPPER, {}).sessionId).toBe(LOWER);
    const one = new ConsumeProcessNotificationCommand(UPPER, UPPER, UPPER);
    expect([one.sessionId, one.loopId, one.commandId]).toEqual([LOWER, LOWER, UPPER]);
    const many = new ConsumeProcessNotificationsCommand(UPPER, UPPER, [UPPER]);
    expect([many.sessionId, many.loopId, many.commandIds]).toEqual([LOWER, LOWER, [UPPER]]);
  });
});
