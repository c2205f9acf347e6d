import type { INestApplication } from '@nestjs/common';
import { ProcessNotificationsService } from 'nestjs-process-notifications';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { serverConfigFromEnv, type ServerConfig } from '../../../src/config/server-config.js';
import { createServerApp } from '../../../src/server-app.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface HttpTestApp {
  readonly app: INestApplication;
  readonly service: ProcessNotificationsService;
  /** Base URL of the listening server, e.g. `http://127.0.0.1:43210`. */
  readonly url: string;
  readonly http: ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * The real server (same module and setup as main.ts) on its own in-memory SQLite database,
 * listening on a free loopback port.
 */
export async function createHttpTestApp(overrides: Partial<ServerConfig> = {}): Promise<HttpTestApp> {
  const config: ServerConfig = {
    ...serverConfigFromEnv({}),
    databaseUrl: 'sqlite::memory:',
    adminToken: ADMIN_TOKEN,
    adminTokenGenerated: false,
    logLevel: 'fatal',
    ...overrides,
  };
  const app = await createServerApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return { app, service: app.get(ProcessNotificationsService), url, http: request(url), close: () => app.close() };
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
export const admin = bearer(ADMIN_TOKEN);

/** A session with one native loop, opened through the API; returns their ids and the session token. */
export async function openSessionWithLoop(
  t: HttpTestApp,
  loopBody: Record<string, unknown> = {},
): Promise<{ sessionId: string; loopId: string; token: string }> {
  const session = await t.http.post('/v1/sessions').set(admin).expect(201);
  const loop = await t.http.post(`/v1/sessions/${session.body.session_id}/loops`).set(admin).send(loopBody).expect(201);
  return { sessionId: session.body.session_id, loopId: loop.body.loop_id, token: session.body.token };
}

export { lifecycleRecord, notification } from '../../support/test-app.js';
