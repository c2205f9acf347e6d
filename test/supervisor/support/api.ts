import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { LIFECYCLE_KINDS } from 'process-notifications-contract';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_ADMIN_TOKEN as ADMIN_TOKEN } from '../../support/server-process.js';

// Token files of this test process, removed when it ends.
let tokenDir: string | undefined;
function tokenFile(sessionId: string, token: string): string {
  if (tokenDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'pn-tokens-'));
    tokenDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = join(tokenDir, sessionId);
  // With a trailing newline, as `echo` writes it: not part of the token.
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

// Plain fetch, so that the tests of the supervisor do not depend on the client it uses.

export interface JournalRecord {
  sequence: number;
  kind: string;
  idempotency_id: string;
  cause_command_id: string | null;
  payload: Record<string, unknown>;
}

const PROCESS_KINDS: readonly string[] = [...LIFECYCLE_KINDS, 'process_notification'];

async function call<T>(url: string, token: string, method = 'GET', body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A session with one native loop on the server at `url`, and what reads it. */
export class TestSession {
  private constructor(
    readonly url: string,
    readonly sessionId: string,
    readonly loopId: string,
    readonly token: string,
  ) {}

  static async open(url: string): Promise<TestSession> {
    const session = await call<{ session_id: string; token: string }>(`${url}/v1/sessions`, ADMIN_TOKEN, 'POST', {});
    const loop = await call<{ loop_id: string }>(`${url}/v1/sessions/${session.session_id}/loops`, session.token, 'POST', {});
    return new TestSession(url, session.session_id, loop.loop_id, session.token);
  }

  /** The options that point a supervisor at this session's loop (the token in a file, as the docs show). */
  get supervisorArgs(): string[] {
    return [
      '--server',
      this.url,
      '--token-file',
      tokenFile(this.sessionId, this.token),
      '--session',
      this.sessionId,
      '--loop',
      this.loopId,
    ];
  }

  /** The same without the token, for a test that passes it otherwise. */
  get supervisorArgsWithoutToken(): string[] {
    return ['--server', this.url, '--session', this.sessionId, '--loop', this.loopId];
  }

  /** The whole journal of the session, as the server sends it (raw text, for searching). */
  async journalText(): Promise<string> {
    const response = await fetch(`${this.url}/v1/sessions/${this.sessionId}/journal?limit=1000`, {
      headers: { Authorization: `Bearer ${this.token}` },
    });
    return response.text();
  }

  async journal(): Promise<JournalRecord[]> {
    return (JSON.parse(await this.journalText()) as { records: JournalRecord[] }).records;
  }

  /** The journal's lifecycle records and notifications: what a supervisor writes (no loop records). */
  async processRecords(): Promise<JournalRecord[]> {
    return (await this.journal()).filter((record) => PROCESS_KINDS.includes(record.kind));
  }

  async pending(): Promise<Array<Record<string, unknown>>> {
    const body = await call<{ notifications: Array<Record<string, unknown>> }>(
      `${this.url}/v1/sessions/${this.sessionId}/loops/${this.loopId}/process-notifications`,
      this.token,
    );
    return body.notifications;
  }

  async consume(commandId: string): Promise<void> {
    await call(
      `${this.url}/v1/sessions/${this.sessionId}/loops/${this.loopId}/process-notifications/${commandId}/consume`,
      this.token,
      'POST',
      {},
    );
  }

  async stopLoop(): Promise<void> {
    await call(`${this.url}/v1/sessions/${this.sessionId}/loops/${this.loopId}/stop`, this.token, 'POST', {});
  }
}
