import type { ProcessNotificationsService } from 'nestjs-process-notifications';
import { HttpProblemError } from '../http/http-problem.error.js';
import { ShutdownState } from '../shutdown/shutdown-state.js';
import { HealthController } from './health.controller.js';

// The service's health as the controller sees it: a check that answers when the test says so.
function serviceAnswering(): { service: ProcessNotificationsService; answer: (healthy: boolean) => void } {
  let answer: (healthy: boolean) => void = () => undefined;
  const pending = new Promise<boolean>((resolve) => (answer = resolve));
  return { service: { isHealthy: () => pending } as unknown as ProcessNotificationsService, answer: (healthy) => answer(healthy) };
}

describe('HealthController', () => {
  it('answers ok while the database answers and no shutdown has begun', async () => {
    const { service, answer } = serviceAnswering();
    const check = new HealthController(service, new ShutdownState()).check();
    answer(true);
    await expect(check).resolves.toEqual({ status: 'ok' });
  });

  it('answers 503 journal_unavailable for a check that was waiting for the database when the shutdown began', async () => {
    const { service, answer } = serviceAnswering();
    const shutdown = new ShutdownState();
    const check = new HealthController(service, shutdown).check();
    shutdown.begin();
    answer(true);
    await expect(check).rejects.toThrow(HttpProblemError);
    await expect(check).rejects.toMatchObject({ code: 'journal_unavailable' });
  });

  it('answers 503 at once once the shutdown has begun, without asking the database', async () => {
    const shutdown = new ShutdownState();
    shutdown.begin();
    const service = { isHealthy: () => Promise.reject(new Error('must not be asked')) } as unknown as ProcessNotificationsService;
    await expect(new HealthController(service, shutdown).check()).rejects.toMatchObject({ code: 'journal_unavailable' });
  });
});
