import { ProcessNotificationsClient } from 'process-notifications-client';
import { LOOP_FILTERS } from 'process-notifications-contract';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { connectPostgresAdmin, freshSchema } from '../support/postgres.js';
import { SERVER_ADMIN_TOKEN, ServerProcess } from '../support/server-process.js';
import { browserAvailable, ConsoleBrowser, type ConsoleTab } from './support/console-browser.js';
import { completion, SEEDED_CAPACITY, seedConsole, type SeededSession } from './support/console-seed.js';

// The web console (spec section 12.2) in headless Chromium, against the real server
// (`node dist/src/main.js`, built by `npm test`'s pretest step) on a SQLite file of its own.

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const describeBrowser = browserAvailable() ? describe : describe.skip;

/** Waits for the view's main heading (`h1`) to read `name`. */
const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** The rows of the table with caption `caption`, as the text of each row's cells. */
async function tableRows(page: Page, caption: string | RegExp): Promise<string[][]> {
  const table = page.getByRole('table', { name: caption });
  await table.waitFor();
  const rows = await table.locator('tbody tr').all();
  return Promise.all(rows.map(async (row) => (await row.locator('td').allInnerTexts()).map((text) => text.trim())));
}

/** The rows of a loop's unconsumed notifications, without the cell of their `Select` box. */
const unconsumedRows = async (page: Page): Promise<string[][]> =>
  (await tableRows(page, /Unconsumed notifications/)).map((row) => row.slice(1));

/** How wide the page is drawn, in CSS pixels: wider than the window means a sideways scroll. */
const pageWidth = async (page: Page): Promise<number> => Number(await page.evaluate('document.documentElement.scrollWidth'));

/** Every serious or critical axe-core finding on the view now shown; the view's name for the message. */
async function expectAccessible(tab: ConsoleTab, view: string): Promise<void> {
  const violations = await tab.seriousViolations();
  expect({ view, violations }).toEqual({ view, violations: [] });
}

describeBrowser('the web console in a browser', () => {
  const dir = tempDir();
  let server: ServerProcess;
  let browser: ConsoleBrowser;
  let seeded: SeededSession;
  let other: SeededSession;
  let seedStartedAt: number;
  let seededAt: number;
  const tabs: ConsoleTab[] = [];
  const tab = async (): Promise<ConsoleTab> => {
    const opened = await browser.tab();
    tabs.push(opened);
    return opened;
  };
  const open = async (path: string, token = SERVER_ADMIN_TOKEN): Promise<ConsoleTab> => {
    const opened = await tab();
    await opened.page.goto(`${server.url}${path}`);
    await opened.signIn(token);
    return opened;
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('console.db')}`, PN_LOOP_CAPACITY: String(SEEDED_CAPACITY) }),
      ConsoleBrowser.launch(),
    ]);
    other = await seedConsole(server.url);
    seedStartedAt = Date.now();
    seeded = await seedConsole(server.url);
    seededAt = Date.now();
  });
  afterEach(async () => {
    // No view may have loaded anything from elsewhere, or been refused anything by its own CSP.
    for (const opened of tabs.splice(0)) {
      expect(opened.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(opened.cspReports).toEqual([]);
      await opened.close();
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    dir.remove();
  });

  it('answers every page with a strict Content-Security-Policy, and serves a view at its own address', async () => {
    for (const path of ['/console', `/console/sessions/${seeded.sessionId}/loops/${seeded.busyLoopId}`]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:|data:/);
      const html = await response.text();
      // No inline script or style; every script is one of the server's own files.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style=/);
      for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(src).toMatch(/^\/console\/assets\//);
    }
    const html = await (await fetch(`${server.url}/console`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('shows only the problem detail for a wrong token, and the sessions for the admin token', async () => {
    const opened = await tab();
    await opened.page.goto(`${server.url}/console`);
    await expectAccessible(opened, 'sign-in');
    await opened.page.getByLabel('Token').fill('not-a-token-of-this-server');
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    const alert = opened.page.getByRole('alert');
    await alert.waitFor();
    const problem = await fetch(`${server.url}/v1/whoami`, { headers: { Authorization: 'Bearer not-a-token-of-this-server' } });
    expect(problem.status).toBe(401);
    expect((await alert.innerText()).trim()).toBe(((await problem.json()) as { detail: string }).detail);
    // Nothing of the console behind the form.
    expect(await opened.page.getByRole('navigation').count()).toBe(0);
    expect(await opened.page.getByRole('table').count()).toBe(0);
    expect(await opened.sessionStorage()).toEqual({});

    await opened.signIn(SERVER_ADMIN_TOKEN);
    await heading(opened.page, 'Sessions');
    expect(opened.page.url()).toBe(`${server.url}/console/sessions`);
    const rows = await tableRows(opened.page, /Sessions/);
    // Newest first, ids in full.
    expect(rows.map((row) => row[0])).toEqual(expect.arrayContaining([seeded.sessionId, other.sessionId]));
    expect(rows.findIndex((row) => row[0] === seeded.sessionId)).toBeLessThan(rows.findIndex((row) => row[0] === other.sessionId));
    const row = rows.find((cells) => cells[0] === seeded.sessionId)!;
    // loops, running loops, unconsumed (1 busy + 3 full + 2 stopped), last sequence.
    expect(row.slice(2, 5)).toEqual(['4', '3', '6']);
    await expectAccessible(opened, 'sessions');

    // The token is in the Authorization header and sessionStorage, nowhere else.
    expect(new Set(opened.authorizations)).toEqual(new Set(['Bearer not-a-token-of-this-server', `Bearer ${SERVER_ADMIN_TOKEN}`]));
    expect(opened.requests.filter((url) => url.includes(SERVER_ADMIN_TOKEN))).toEqual([]);
    expect(Object.values(await opened.sessionStorage())).toEqual([SERVER_ADMIN_TOKEN]);
    expect(await browser.context.cookies()).toEqual([]);
    expect(await opened.page.content()).not.toContain(SERVER_ADMIN_TOKEN);
    expect(server.output).not.toContain(SERVER_ADMIN_TOKEN);
  });

  it('shows a full loop, a stopped loop with work left and a collision on the first screen after sign-in', async () => {
    const opened = await tab();
    const page = opened.page;
    // The server's own address leads a browser to the console.
    await page.goto(`${server.url}/`);
    expect(page.url()).toBe(`${server.url}/console`);
    await opened.signIn(SERVER_ADMIN_TOKEN);
    await heading(page, 'Sessions');
    const attention = await tableRows(page, /Loops that need attention/);
    const conditionOf = (loopId: string): string => attention.find((row) => row[0] === loopId)?.[2] ?? '';
    // 2 pending + 1 refused as inbox_full, capacity 2.
    // Over capacity, said as such (not "3 unconsumed of 2").
    expect(conditionOf(seeded.fullLoopId)).toBe(
      'over capacity: 3 unconsumed, 1 more than its capacity of 2; its next delivery is refused (inbox_full)',
    );
    expect(conditionOf(seeded.stoppedLoopId)).toMatch(/stopped with work left: 2 unconsumed/);
    expect(conditionOf(seeded.busyLoopId)).toBe('');
    const collisions = await tableRows(page, /Recent idempotency collisions/);
    const collision = collisions.find((row) => row[0] === seeded.collidedCommandId)!;
    expect(collision.slice(1, 5)).toEqual([`sequence ${seeded.collidedSequence}`, 'process_handle', seeded.busyLoopId, 'once']);
    await expectAccessible(opened, 'first screen');
    // Nothing scrolls sideways in a 1280 px window.
    expect(await pageWidth(page)).toBeLessThanOrEqual(1280);

    // The full loop's page: its condition, both figures named as everywhere, and every unconsumed
    // notification (the refused one too) with its Consume.
    await page
      .getByRole('table', { name: /Loops that need attention/ })
      .getByRole('link', { name: seeded.fullLoopId })
      .click();
    await heading(page, `Loop ${seeded.fullLoopId}`);
    const count = (name: string) => page.locator('dl.counts div', { hasText: name }).locator('dd').innerText();
    expect([await count('Capacity'), await count('Pending'), await count('Unconsumed')]).toEqual(['2', '2', '3']);
    await page.locator('.loop-condition', { hasText: 'over capacity: 3 unconsumed, 1 more than its capacity of 2' }).waitFor();
    await page
      .getByRole('table', { name: /Unconsumed notifications/ })
      .locator(`tr[data-status="refused"]`)
      .waitFor();
    const unconsumed = await unconsumedRows(page);
    expect(unconsumed.map((row) => [row[0], row[1]])).toEqual([
      [expect.any(String), 'pending'],
      [expect.any(String), 'pending'],
      [seeded.overflowCommandId, 'refused: the loop’s set was full'],
    ]);
    await expectAccessible(opened, 'full loop');
  });

  it('consumes a notification the loop refused, from the loop page, and shows the loop no longer full', async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.stoppedLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.stoppedLoopId}`);
    await page.locator('.loop-condition', { hasText: 'stopped with work left' }).waitFor();
    await page.getByRole('button', { name: `Consume ${session.refusedByStoppedCommandId}` }).click();
    await page.getByRole('dialog', { name: 'Consume notification?' }).getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Consumed ${session.refusedByStoppedCommandId}` })
      .waitFor();
    await page.locator('dl.counts div', { hasText: 'Unconsumed' }).locator('dd', { hasText: /^1$/ }).waitFor();
    const loops = await admin().adminLoops({ session_id: session.sessionId, filter: 'stopped' });
    expect(loops.loops.map((loop) => [loop.loop_id, loop.unconsumed])).toEqual([[session.stoppedLoopId, 1]]);

    await page.goto(`${server.url}/console/sessions/${session.sessionId}/loops/${session.fullLoopId}`);
    await page.getByRole('button', { name: `Consume ${session.overflowCommandId}` }).click();
    await page.getByRole('dialog', { name: 'Consume notification?' }).getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Consumed ${session.overflowCommandId}` })
      .waitFor();
    // 2 of 2: still full (its next delivery is refused), now with only pending ones.
    await page.locator('dl.counts div', { hasText: 'Unconsumed' }).locator('dd', { hasText: /^2$/ }).waitFor();
    // The count and the rows come from two reads: wait for the refused row to go (or time out).
    await page.locator('tr[data-status="refused"]').first().waitFor({ state: 'detached' });
    expect(await page.locator('tr[data-status="refused"]').count()).toBe(0);
    await page.locator('.loop-condition', { hasText: 'full: 2 unconsumed, its whole capacity' }).waitFor();
  });

  it('updates the first screen by itself: a loop filled and a session opened after it loaded appear without a reload', async () => {
    const opened = await open('/console');
    const page = opened.page;
    await heading(page, 'Sessions');
    await tableRows(page, /Loops that need attention/);
    await page
      .getByText(/Updated \d+ s ago, refreshed every 5 s/)
      .first()
      .waitFor();
    const requestsBefore = opened.requests.filter((url) => url.endsWith('/console') || url.includes('/console/sessions')).length;
    // Made through the API after the page loaded: a full loop, a stopped one, a collision.
    const later = await seedConsole(server.url);
    const attention = page.getByRole('table', { name: /Loops that need attention/ });
    await attention.getByRole('link', { name: later.fullLoopId }).waitFor({ timeout: 15_000 });
    await attention.getByRole('link', { name: later.stoppedLoopId }).waitFor();
    await page
      .getByRole('table', { name: /Sessions, newest first/ })
      .getByRole('link', { name: later.sessionId })
      .waitFor();
    // No navigation happened: the same document, read again in place.
    expect(opened.requests.filter((url) => url.endsWith('/console') || url.includes('/console/sessions')).length).toBe(requestsBefore);
  });

  // A seeded session whose busy loop was given a completion, then the same id with another
  // payload three times (refused each time): one collision.
  async function collideThreeTimes() {
    const session = await seedConsole(server.url);
    const api = client(session);
    const original = completion(session.sessionId, session.busyLoopId, 'make-once');
    await api.deliverCompletion(original);
    for (let i = 0; i < 3; i++)
      await api.deliverCompletion({ ...original, process_handle: 'make-twice' }, { retry: false }).catch(() => undefined);
    return { session, original };
  }

  it('lists a collision once however often it was refused, with how often', async () => {
    // The supervisor retries its reused id three times: three refusals, one collision.
    const { original } = await collideThreeTimes();
    const refused = (await admin().refusals({ limit: 1000 })).refusals.filter((r) => r.command_id === original.command_id);
    expect(refused.map((r) => r.code)).toEqual(['idempotency_collision', 'idempotency_collision', 'idempotency_collision']);

    const opened = await open('/console');
    const rows = (await tableRows(opened.page, /Recent idempotency collisions/)).filter((row) => row[0] === original.command_id);
    expect(rows.map((row) => row[4])).toEqual(['3 times']);
  });

  it('consumes every selected notification of a loop after one confirmation', async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.fullLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.fullLoopId}`);
    await page.locator('tr[data-status="refused"]').waitFor();
    await page.getByRole('button', { name: 'Select all 3' }).click();
    await page.getByRole('button', { name: 'Consume selected (3)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Consume 3 notifications?' });
    await dialog.waitFor();
    expect(await page.getByRole('dialog').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Consumed 3 of 3 selected notifications.' }).waitFor();
    // One confirmation for all three: no other dialog comes up.
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.locator('dl.counts div', { hasText: 'Unconsumed' }).locator('dd', { hasText: /^0$/ }).waitFor();
    // What really happened: the journal holds nothing unconsumed for the loop.
    const loops = await admin().adminLoops({ session_id: session.sessionId });
    expect(loops.loops.find((loop) => loop.loop_id === session.fullLoopId)?.unconsumed).toBe(0);
    expect((await client(session).pendingNotifications(session.sessionId, session.fullLoopId)).notifications).toEqual([]);
    expect(await page.getByRole('button', { name: 'Consume selected (0)' }).count()).toBe(0);
  });

  it('shows no running loops for a closed session', async () => {
    const session = await seedConsole(server.url);
    await client(session).closeSession(session.sessionId);
    const opened = await open('/console');
    await heading(opened.page, 'Sessions');
    const row = (await tableRows(opened.page, /Sessions, newest first/)).find((cells) => cells[0] === session.sessionId);
    // loops, running loops: 4 loops, none running once closed.
    expect([row?.[2], row?.[3], row?.at(-1)]).toEqual(['4', '0', 'closed']);
    const answer = (await admin().adminSessions({ limit: 1000 })).sessions.find((s) => s.session_id === session.sessionId);
    expect(answer?.running_loops).toBe(0);
  });

  it('names the figures alike on the session view, and fits a UUID in the Command id field', async () => {
    const opened = await open(`/console/sessions/${seeded.sessionId}`);
    const page = opened.page;
    await heading(page, `Session ${seeded.sessionId}`);
    const table = page.getByRole('table', { name: /Loops of this session/ });
    await table.waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toEqual([
      'Loop id',
      'Engine',
      'State',
      'Condition',
      'Capacity',
      'Pending',
      'Unconsumed',
    ]);
    await table.locator('tr', { hasText: seeded.fullLoopId }).getByText('full: next delivery refused').waitFor();
    const full = (await tableRows(page, /Loops of this session/)).find((row) => row[0] === seeded.fullLoopId)!;
    expect(full.slice(4)).toEqual(['2', '2', '3']);
    const search = page.getByLabel('Command id');
    await search.fill(seeded.pendingCommandId);
    // The whole id is visible: nothing scrolled out of the field.
    expect(
      await search.evaluate((input) => {
        const box = input as unknown as { scrollWidth: number; clientWidth: number };
        return box.scrollWidth <= box.clientWidth;
      }),
    ).toBe(true);
  });

  it('goes from the sessions list to a session, to a loop, and back and forward through history', async () => {
    const opened = await open('/console/sessions');
    const page = opened.page;
    await page.getByRole('table', { name: 'Sessions, newest first' }).getByRole('link', { name: seeded.sessionId }).click();
    await heading(page, `Session ${seeded.sessionId}`);
    expect(page.url()).toBe(`${server.url}/console/sessions/${seeded.sessionId}`);
    const loops = await tableRows(page, /Loops of this session/);
    expect(loops.map((row) => row[0]).sort()).toEqual(
      [seeded.fullLoopId, seeded.busyLoopId, seeded.stoppedLoopId, seeded.idleLoopId].sort(),
    );
    await expectAccessible(opened, 'session');

    await page.getByRole('link', { name: seeded.busyLoopId }).click();
    await heading(page, `Loop ${seeded.busyLoopId}`);
    expect(page.url()).toBe(`${server.url}/console/sessions/${seeded.sessionId}/loops/${seeded.busyLoopId}`);

    await page.goBack();
    await heading(page, `Session ${seeded.sessionId}`);
    await page.goBack();
    await heading(page, 'Sessions');
    await page.goForward();
    await heading(page, `Session ${seeded.sessionId}`);
    await page.goForward();
    await heading(page, `Loop ${seeded.busyLoopId}`);
    // Followed without a reload: the tab asked for the page once.
    expect(opened.requests.filter((url) => url.startsWith(`${server.url}/console`) && !url.includes('/assets/'))).toHaveLength(1);
  });

  it("shows a loop's counts, pending notifications, process lifecycles and journal, and is accessible", async () => {
    const opened = await open(`/console/sessions/${seeded.sessionId}/loops/${seeded.busyLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${seeded.busyLoopId}`);
    // The ages and lifecycles are drawn from the live journal, which arrives in batches: read
    // them once the whole session's journal is on the page, not while it is still coming in.
    await journalDrawn(page, seeded, seeded.busyLoopId);
    const count = (name: string) => page.locator('dl.counts div', { hasText: name }).locator('dd').innerText();
    expect(await count('State')).toBe('running');
    expect(await count('Capacity')).toBe(String(SEEDED_CAPACITY));
    expect(await count('Pending')).toBe('1');
    expect(await count('Unconsumed')).toBe('1');
    await page
      .getByRole('table', { name: /Unconsumed notifications/ })
      .locator('time')
      .waitFor();
    const pending = await unconsumedRows(page);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.slice(0, 4)).toEqual([seeded.pendingCommandId, 'pending', 'npm-test', 'exited/exited']);
    // Seconds for the first two minutes, minutes after: a slow run can reach the second.
    expect(pending[0]![4]).toMatch(/^\d+ (s|min)$/);
    const lifecycle = await tableRows(page, /Lifecycle of each process handle/);
    expect(lifecycle).toHaveLength(1);
    expect(lifecycle[0]![0]).toBe('npm-test');
    expect(lifecycle[0]![4]).toMatch(/^completed /);
    expect(lifecycle[0]!.slice(5)).toEqual(['exited/exited', '0']);
    await page.getByText('Live: new records appear').waitFor();
    // This loop's records only, by default.
    const journal = await tableRows(page, /Journal of this loop/);
    expect(journal.map((row) => row[2]).sort()).toEqual(['completed', 'process_notification', 'started']);
    expect(new Set(journal.map((row) => row[3]))).toEqual(new Set([seeded.busyLoopId]));
    await page.getByLabel("Only this loop's records").uncheck();
    const whole = await tableRows(page, /Session journal/);
    expect(whole.map((row) => row[2])).toEqual(expect.arrayContaining(['process_notification_consumed', 'loop_stopped']));
    await expectAccessible(opened, 'loop');
  });

  it('shows a delivery made through the API on an open loop view within 2 s, without a reload', async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.idleLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.idleLoopId}`);
    await page.getByText('No notification is unconsumed.').waitFor();
    await page.getByText('Live: new records appear').waitFor();
    // "Live" is also said a second after opening when nothing failed: the 2 s start once the
    // stream has really delivered what was already journaled.
    await journalDrawn(page, session, session.idleLoopId);
    const delivered = completion(session.sessionId, session.idleLoopId, 'live-delivery');
    const client = new ProcessNotificationsClient({ baseUrl: server.url, token: session.token });
    const { sequence } = await client.deliverCompletion(delivered);
    const started = Date.now();
    await page.locator(`table.timeline tr[data-sequence="${sequence}"]`).waitFor({ timeout: 2_000 });
    await page
      .getByRole('table', { name: /Unconsumed notifications/ })
      .getByText(delivered.command_id)
      .waitFor({ timeout: Math.max(1, 2_000 - (Date.now() - started)) }); // 0 would mean no timeout
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(opened.requests.filter((url) => url.startsWith(`${server.url}/console`) && !url.includes('/assets/'))).toHaveLength(1);
  });

  it('shows the signal that ended a command, not just killed, on the loop view and the search (issue 47)', async () => {
    const session = await seedConsole(server.url);
    const api = new ProcessNotificationsClient({ baseUrl: server.url, token: session.token });
    const crashed = { ...completion(session.sessionId, session.idleLoopId, 'segfaulter'), state: 'killed', reason: 'killed' } as const;
    const at = new Date(Date.now() - 5_000).toISOString();
    await api.publishLifecycle({
      event_id: randomUUID(),
      kind: 'completed',
      session_id: session.sessionId,
      loop_id: session.idleLoopId,
      process_handle: 'segfaulter',
      origin_execution_id: randomUUID(),
      state: 'killed',
      reason: 'killed',
      process_created_at: at,
      process_started_at: at,
      process_finished_at: at,
      command_id: crashed.command_id,
      signal: 'SIGSEGV',
    });
    await api.deliverCompletion(crashed);

    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.idleLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.idleLoopId}`);
    await journalDrawn(page, session, session.idleLoopId);
    await page
      .getByRole('table', { name: /Unconsumed notifications/ })
      .locator('time')
      .waitFor();
    const [unconsumed] = await unconsumedRows(page);
    expect(unconsumed!.slice(0, 4)).toEqual([crashed.command_id, 'pending', 'segfaulter', 'killed/killed']);
    expect(unconsumed![5]).toBe('completed, signal SIGSEGV');
    const [lifecycle] = await tableRows(page, /Lifecycle of each process handle/);
    expect(lifecycle!.slice(5)).toEqual(['killed/killed', 'SIGSEGV']);
    const journal = await tableRows(page, /Journal of this loop/);
    expect(journal.map((row) => row.join(' ')).filter((row) => row.includes('SIGSEGV'))).toHaveLength(1);

    const search = await open(`/console/notifications/${crashed.command_id}`);
    await heading(search.page, `Command id ${crashed.command_id}`);
    const [where] = await tableRows(search.page, /Where this notification is/);
    expect(where).toContain('completed, signal SIGSEGV');
  });

  it('consumes a pending notification and stops a loop, each after a confirmation, and shows the result', async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.busyLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.busyLoopId}`);

    await page.getByRole('button', { name: `Consume ${session.pendingCommandId}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Consume notification?' });
    await dialog.waitFor();
    await expectAccessible(opened, 'consume confirmation');
    // Cancelled: nothing happens.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await client(session).pendingNotifications(session.sessionId, session.busyLoopId)).notifications).toHaveLength(1);

    await page.getByRole('button', { name: `Consume ${session.pendingCommandId}` }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Consumed ${session.pendingCommandId}` })
      .waitFor();
    await page.getByText('No notification is unconsumed.').waitFor();
    expect((await client(session).pendingNotifications(session.sessionId, session.busyLoopId)).notifications).toEqual([]);

    await page.getByRole('button', { name: 'Stop loop' }).click();
    const stop = page.getByRole('dialog', { name: 'Stop loop?' });
    await stop.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Loop stopped' }).waitFor();
    await page.locator('dl.counts div', { hasText: 'State' }).getByText('stopped').waitFor();
    expect((await client(session).getLoop(session.sessionId, session.busyLoopId)).state).toBe('stopped');
    expect(await page.getByRole('button', { name: 'Stop loop' }).isDisabled()).toBe(true);
  });

  it('rotates a session token and closes the session, each after a confirmation; the list marks it closed', async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}`);
    const page = opened.page;
    await heading(page, `Session ${session.sessionId}`);
    await page.locator('dl.counts div', { hasText: 'State' }).getByText('open').waitFor();

    await page.getByRole('button', { name: 'Rotate token' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate token?' });
    await rotate.waitFor();
    await expectAccessible(opened, 'rotate confirmation');
    // Cancelled: the token still works.
    await rotate.getByRole('button', { name: 'Cancel' }).click();
    await rotate.waitFor({ state: 'detached' });
    expect((await client(session).getSession(session.sessionId)).state).toBe('open');

    await page.getByRole('button', { name: 'Rotate token' }).click();
    await rotate.getByRole('button', { name: 'Confirm' }).click();
    const shown = page.getByLabel('New token');
    await shown.waitFor();
    await page.getByText('it is shown only this once').waitFor();
    await page.getByText('Select it and copy it').waitFor();
    const fresh = await shown.inputValue();
    await expectAccessible(opened, 'rotated token');
    expect(
      await client(session)
        .getSession(session.sessionId)
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 401 });
    const renewed = client({ ...session, token: fresh });
    expect((await renewed.getSession(session.sessionId)).state).toBe('open');

    await page.getByRole('button', { name: 'Close session' }).click();
    const close = page.getByRole('dialog', { name: 'Close session?' });
    await close.waitFor();
    await expectAccessible(opened, 'close confirmation');
    await close.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Session closed' }).waitFor();
    await page.locator('dl.counts div', { hasText: 'State' }).getByText('closed').waitFor();
    expect(await page.getByRole('button', { name: 'Rotate token' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Close session' }).isDisabled()).toBe(true);
    expect(await renewed.getSession(session.sessionId).catch((e: unknown) => e)).toMatchObject({ status: 401 });
    // Still readable with the admin token: its loops are listed.
    await tableRows(page, /Loops of this session/);

    await page.getByRole('navigation').getByRole('link', { name: 'Sessions' }).click();
    await heading(page, 'Sessions');
    const listed = (await tableRows(page, /Sessions, newest first/)).find((row) => row[0] === session.sessionId);
    // State is the last column.
    expect(listed?.at(-1)).toBe('closed');
    expect((await tableRows(page, /Sessions, newest first/)).find((row) => row[0] === seeded.sessionId)?.at(-1)).toBe('open');
    // The new token was shown on the page, never sent anywhere but in the answer.
    expect(opened.requests.filter((url) => url.includes(fresh))).toEqual([]);
  });

  it("signed in with a session's own token: a rotation goes on with the new token, a close signs out saying why", async () => {
    const session = await seedConsole(server.url);
    const opened = await open('/console', session.token);
    const page = opened.page;
    await heading(page, `Session ${session.sessionId}`);

    await page.getByRole('button', { name: 'Rotate token' }).click();
    await page.getByRole('dialog', { name: 'Rotate token?' }).getByRole('button', { name: 'Confirm' }).click();
    const fresh = await page.getByLabel('New token').inputValue();
    // The console now uses the new token: its next requests carry it, and it still answers.
    await page.getByRole('link', { name: session.busyLoopId }).click();
    await heading(page, `Loop ${session.busyLoopId}`);
    await page.locator('dl.counts div', { hasText: 'State' }).getByText('running').waitFor();
    expect(opened.authorizations.at(-1)).toBe(`Bearer ${fresh}`);

    await page.getByRole('link', { name: session.sessionId }).click();
    await heading(page, `Session ${session.sessionId}`);
    await page.getByRole('button', { name: 'Close session' }).click();
    await page.getByRole('dialog', { name: 'Close session?' }).getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Session ${session.sessionId} was closed`).waitFor();
    await page.getByLabel('Token').waitFor();
    expect(await opened.sessionStorage()).toEqual({});
  });

  it("shows an action's problem detail when the API refuses it", async () => {
    const session = await seedConsole(server.url);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.fullLoopId}`);
    const page = opened.page;
    const [first] = (await unconsumedRows(page)).map((row) => row[0]!);
    // Consumed behind the console's back while its confirmation is open: the console's consume
    // then answers consumed: false. (Consumed before the click, the live feed would already have
    // taken the row, and its button, off the page.)
    await page.getByRole('button', { name: `Consume ${first}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Consume notification?' });
    await dialog.waitFor();
    await client(session).consume(session.sessionId, session.fullLoopId, first!);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${first} was already consumed` })
      .waitFor();
    // A loop that is gone answers loop_not_found: its detail is shown, not a blank page.
    const missing = randomUUID();
    await page.goto(`${server.url}/console/sessions/${session.sessionId}/loops/${missing}`);
    const detail = page.getByRole('alert');
    await detail.waitFor();
    const answer = await fetch(`${server.url}/v1/sessions/${session.sessionId}/loops/${missing}`, {
      headers: { Authorization: `Bearer ${SERVER_ADMIN_TOKEN}` },
    });
    expect((await detail.innerText()).trim()).toBe(((await answer.json()) as { detail: string }).detail);
  });

  it('filters the loops list: all, unconsumed, full, stopped and stale', async () => {
    const opened = await open('/console/loops');
    const page = opened.page;
    await heading(page, 'Loops');
    const filter = page.getByLabel('Filter');
    expect(await filter.locator('option').allInnerTexts()).toEqual([...LOOP_FILTERS]);
    const shownLoops = async (): Promise<string[]> =>
      (await tableRows(page, /Loops \(/)).map((row) => row[1]!).filter((id) => mine.includes(id));
    const mine = [seeded.fullLoopId, seeded.busyLoopId, seeded.stoppedLoopId, seeded.idleLoopId];
    expect((await shownLoops()).sort()).toEqual([...mine].sort());
    await expectAccessible(opened, 'loops');

    const expectFilter = async (value: string, loops: string[]): Promise<void> => {
      await filter.selectOption(value);
      await page.waitForURL(value === 'all' ? `${server.url}/console/loops` : `${server.url}/console/loops?filter=${value}`);
      // A table, or the sentence saying that no loop matches.
      const table = page.getByRole('table', { name: `Loops (${value}), newest first` });
      await table.or(page.getByText(`No loops match the filter ${value}.`)).waitFor();
      expect((await table.count()) === 0 ? [] : (await shownLoops()).sort()).toEqual([...loops].sort());
    };
    await expectFilter('unconsumed', [seeded.fullLoopId, seeded.busyLoopId, seeded.stoppedLoopId]);
    // The stopped loop holds as many as its capacity: its next delivery would answer inbox_full too.
    await expectFilter('full', [seeded.fullLoopId, seeded.stoppedLoopId]);
    await expectFilter('stopped', [seeded.stoppedLoopId]);
    // Stale by default after 300 s: the seeded notifications (journaled between seedStartedAt and
    // seededAt) are younger, unless this machine is very slow; then wait until all are past it,
    // rather than guess on which side of it they are.
    const young = Date.now() - seedStartedAt < 290_000;
    if (!young) await new Promise((resolve) => setTimeout(resolve, Math.max(0, seededAt + 301_000 - Date.now())));
    await expectFilter('stale', young ? [] : [seeded.fullLoopId, seeded.busyLoopId, seeded.stoppedLoopId]);
    const olderThan = page.getByLabel('Older than (seconds)');
    await olderThan.fill('1');
    await olderThan.press('Enter');
    await page.waitForURL(/older_than_s=1/);
    await page.getByRole('table', { name: 'Loops (stale), newest first' }).waitFor();
    expect((await shownLoops()).sort()).toEqual([seeded.fullLoopId, seeded.busyLoopId, seeded.stoppedLoopId].sort());
    // Each filter has its own address: back goes to the previous one.
    await page.goBack();
    await page.waitForURL(`${server.url}/console/loops?filter=stale`);
    await page.goBack();
    await page.waitForURL(`${server.url}/console/loops?filter=stopped`);
    expect(await filter.inputValue()).toBe('stopped');
  });

  it('finds a notification by command id, and says when none is found', async () => {
    const opened = await open('/console/nodes');
    const page = opened.page;
    await heading(page, 'Nodes');
    const search = page.getByLabel('Command id');
    await search.fill(seeded.pendingCommandId);
    await search.press('Enter');
    await heading(page, `Command id ${seeded.pendingCommandId}`);
    expect(page.url()).toBe(`${server.url}/console/notifications/${seeded.pendingCommandId}`);
    const rows = await tableRows(page, /Where this notification is/);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(0, 3)).toEqual([seeded.sessionId, seeded.busyLoopId, 'running']);
    await expectAccessible(opened, 'search result');
    await page
      .getByRole('table', { name: /Where this notification is/ })
      .getByRole('link', { name: seeded.busyLoopId })
      .click();
    await heading(page, `Loop ${seeded.busyLoopId}`);

    const unknown = randomUUID();
    await search.fill(unknown);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(`Not found: no session has journaled a notification with command id ${unknown}.`).waitFor();
    await expectAccessible(opened, 'search not found');
  });

  it('lists the nodes and the recent refusals', async () => {
    const opened = await open('/console/nodes');
    const page = opened.page;
    const nodes = await tableRows(page, 'Nodes');
    expect(nodes).toHaveLength(1);
    // Its id, as the API (and an owner_unavailable problem) names it.
    const [node] = (await admin().nodes()).nodes;
    expect(nodes[0]![0]).toBe(node!.node_id);
    expect(nodes[0]![4]).toMatch(/^\d+$/);
    await expectAccessible(opened, 'nodes');
    await page.getByRole('link', { name: 'Refusals' }).click();
    await heading(page, 'Refusals');
    const refusals = await tableRows(page, /Recent refusals/);
    const mine = refusals.filter((row) => row[2]!.includes(seeded.sessionId));
    expect(mine.find((row) => row[3] === `command ${seeded.refusedByStoppedCommandId}`)!.slice(1, 3)).toEqual([
      'delivery_stopped\ncause loop_stopped',
      `session ${seeded.sessionId}\nloop ${seeded.stoppedLoopId}`,
    ]);
    // A collision: the original's sequence and the fields that differ, its id a link to the search.
    const collision = mine.find((row) => row[1]!.startsWith('idempotency_collision'))!;
    expect(collision.slice(3)).toEqual([
      `command ${seeded.collidedCommandId}`,
      `original sequence ${seeded.collidedSequence}\ndiffers process_handle`,
    ]);
    expect(collision[0]).toContain(`node ${(await admin().nodes()).nodes[0]!.node_id}`);
    await expectAccessible(opened, 'refusals');
    // Fits a 1280 px window: nothing to scroll sideways.
    expect(await pageWidth(page)).toBeLessThanOrEqual(1280);
    await page
      .getByRole('table', { name: /Recent refusals/ })
      .getByRole('link', { name: seeded.collidedCommandId })
      .first()
      .click();
    await heading(page, `Command id ${seeded.collidedCommandId}`);
    expect(await tableRows(page, /Where this notification is/)).toEqual([expect.arrayContaining([seeded.sessionId, seeded.busyLoopId])]);
    const refused = await tableRows(page, /Refused deliveries with this command id/);
    expect(refused).toHaveLength(1);
    expect(refused[0]![4]).toBe(`original sequence ${seeded.collidedSequence}\ndiffers process_handle`);
    await expectAccessible(opened, 'search with refusals');
  });

  // This and the next two add refusals and loops: they come after the tests that look for the
  // seeded ones on the first page of the newest (the loops list, the recent refusals).
  it('lists a delivery refused the same way three times once on the Refusals view and the search, with how often', async () => {
    const { session, original } = await collideThreeTimes();
    expect((await admin().refusals({ limit: 1000 })).refusals.filter((r) => r.command_id === original.command_id)).toHaveLength(3);

    const opened = await open('/console/refusals');
    const page = opened.page;
    await heading(page, 'Refusals');
    const rows = (await tableRows(page, /Recent refusals/)).filter((row) => row[3] === `command ${original.command_id}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toMatch(/refused 3 times$/);
    expect(rows[0]![4]).toMatch(/^original sequence \d+\ndiffers process_handle$/);
    // A refusal made once says so.
    const once = (await tableRows(page, /Recent refusals/)).find((row) => row[3] === `command ${session.refusedByStoppedCommandId}`)!;
    expect(once[0]).toMatch(/refused once$/);

    await page
      .getByRole('table', { name: /Recent refusals/ })
      .getByRole('link', { name: original.command_id })
      .click();
    await heading(page, `Command id ${original.command_id}`);
    const refused = await tableRows(page, /Refused deliveries with this command id/);
    expect(refused).toHaveLength(1);
    expect(refused[0]![0]).toMatch(/refused 3 times$/);
  });

  it('pages a loop of 70 unconsumed notifications 50 rows at a time, and consumes all 70 after one confirmation', async () => {
    const session = await seedConsole(server.url);
    const api = client(session);
    // The full loop holds 3; 67 more, each refused inbox_full and journaled: 70 unconsumed.
    for (let i = 0; i < 67; i++)
      await api.deliverCompletion(completion(session.sessionId, session.fullLoopId), { retry: false }).catch(() => undefined);
    const opened = await open(`/console/sessions/${session.sessionId}/loops/${session.fullLoopId}`);
    const page = opened.page;
    await heading(page, `Loop ${session.fullLoopId}`);
    await page.getByRole('button', { name: 'Select all 70' }).waitFor();
    // A page of 50 rows; `Select all 70` takes the other page's too.
    expect(await unconsumedRows(page)).toHaveLength(50);
    await page.getByRole('button', { name: 'Select all 70' }).click();
    await page.getByRole('button', { name: 'Consume selected (70)' }).click();
    await page.getByRole('dialog', { name: 'Consume 70 notifications?' }).getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Consumed 70 of 70 selected notifications.' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(
      (await admin().adminLoops({ session_id: session.sessionId })).loops.find((l) => l.loop_id === session.fullLoopId)?.unconsumed,
    ).toBe(0);
  });

  it("shows a closed session's loops closed with it, not running, on its page and the loop's, with nothing to stop or consume", async () => {
    const session = await seedConsole(server.url);
    await client(session).closeSession(session.sessionId);
    const opened = await open(`/console/sessions/${session.sessionId}`);
    const page = opened.page;
    await heading(page, `Session ${session.sessionId}`);
    const rows = await tableRows(page, /Loops of this session/);
    const stateOf = (loopId: string): string | undefined => rows.find((row) => row[0] === loopId)?.[2];
    expect([session.busyLoopId, session.fullLoopId, session.idleLoopId, session.stoppedLoopId].map(stateOf)).toEqual([
      'session closed',
      'session closed',
      'session closed',
      'stopped, session closed',
    ]);
    expect(rows.filter((row) => row[2] === 'running')).toEqual([]);

    await page.getByRole('link', { name: session.busyLoopId }).click();
    await heading(page, `Loop ${session.busyLoopId}`);
    await page
      .locator('dl.counts div', { hasText: 'State' })
      .locator('dd', { hasText: /^session closed$/ })
      .waitFor();
    await page.getByRole('status').filter({ hasText: 'Its session is closed' }).waitFor();
    expect(await page.getByRole('button', { name: 'Stop loop' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: `Consume ${session.pendingCommandId}` }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: /^Select all/ }).isDisabled()).toBe(true);
    await expectAccessible(opened, 'loop of a closed session');
  });

  it('opens a bookmarked address after sign-in, and forgets the token on sign-out', async () => {
    const opened = await tab();
    const page = opened.page;
    const address = `${server.url}/console/sessions/${seeded.sessionId}/loops/${seeded.fullLoopId}`;
    await page.goto(address);
    await page.getByLabel('Token').waitFor();
    await opened.signIn(SERVER_ADMIN_TOKEN);
    await heading(page, `Loop ${seeded.fullLoopId}`);
    expect(page.url()).toBe(address);
    // A reload keeps the tab signed in (sessionStorage) and on its view.
    await page.reload();
    await heading(page, `Loop ${seeded.fullLoopId}`);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    expect(await opened.sessionStorage()).toEqual({});
    await page.reload();
    await page.getByLabel('Token').waitFor();
    expect(await page.getByRole('navigation').count()).toBe(0);
  });

  it('shows a session token its own session only, and says which views need the admin token', async () => {
    const opened = await open('/console', seeded.token);
    const page = opened.page;
    await heading(page, `Session ${seeded.sessionId}`);
    expect(page.url()).toBe(`${server.url}/console/sessions/${seeded.sessionId}`);
    await expectAccessible(opened, 'session (session token)');
    // Its own session first; the four lists are still linked (spec section 12.2), each marked as the
    // admin token's, and at its address such a view says it needs the admin token.
    const nav = page.getByRole('navigation', { name: 'Views' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Your session', 'Sessions', 'Loops', 'Nodes', 'Refusals']);
    for (const name of ['Sessions', 'Loops', 'Nodes', 'Refusals']) {
      expect(await nav.getByRole('link', { name, exact: true }).getAttribute('title')).toBe('Needs the admin token');
    }
    for (const [view, path] of [
      ['Sessions', '/console/sessions'],
      ['Loops', '/console/loops'],
      ['Nodes', '/console/nodes'],
      ['Refusals', '/console/refusals'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await heading(page, view);
      await page.getByText('This view needs the admin token').waitFor();
    }
    await page.getByLabel('Command id').fill(seeded.pendingCommandId);
    await page.getByLabel('Command id').press('Enter');
    // The previous view says the same: wait for the search's own view first.
    await heading(page, `Command id ${seeded.pendingCommandId}`);
    await page.getByText('This view needs the admin token').waitFor();
    // Its own loop, live, with the journal.
    await page.getByRole('link', { name: seeded.sessionId }).click();
    await page.getByRole('link', { name: seeded.busyLoopId }).click();
    await heading(page, `Loop ${seeded.busyLoopId}`);
    // Counted from the session's journal as it streams in (the admin's count is the database's).
    await page.locator('dl.counts div', { hasText: 'Unconsumed' }).locator('dd', { hasText: /^1$/ }).waitFor();
    await expectAccessible(opened, 'loop (session token)');
    // Another session's address: the API's refusal, shown.
    await page.goto(`${server.url}/console/sessions/${other.sessionId}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).not.toBe('');
    expect(await page.getByRole('table').count()).toBe(0);
    expect(new Set(opened.authorizations)).toEqual(new Set([`Bearer ${seeded.token}`]));
  });

  it('takes the two screenshots of the docs from a seeded console', async () => {
    // A server of its own, so the pictures show only the seeded session, with the same ids every time.
    const shotsDir = tempDir();
    const shots = await ServerProcess.start({
      PN_DATABASE_URL: `sqlite:${shotsDir.file('shots.db')}`,
      PN_LOOP_CAPACITY: String(SEEDED_CAPACITY),
    });
    try {
      const session = await seedConsole(shots.url, {
        sessionId: '3f2b8c1e-5d4a-4e7b-9c1f-0a6d2e8b7c41',
        loopIds: [
          '8a1c3e5f-7b9d-4f2a-8c6e-1d3f5a7b9c02',
          '2c4e6a8b-1d3f-4a5c-9e7b-3f5a7c9e1b23',
          '6e8a2c4b-9f1d-4b3a-a5c7-5b7d9f1a3c44',
          'b0d2f4a6-3c5e-4d7f-8a9b-7d9f1b3d5e65',
        ],
        commandIds: [
          '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
          '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
          '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
          '3c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e7f',
          '4d5e6f7a-8b9c-4d0e-9f2a-3b4c5d6e7f80',
          '5e6f7a8b-9c0d-4e1f-8a3b-4c5d6e7f8091',
          '6f7a8b9c-0d1e-4f2a-9b4c-5d6e7f809102',
        ],
      });
      const opened = await tab();
      const page = opened.page;
      await page.goto(`${shots.url}/console/loops`);
      await opened.signIn(SERVER_ADMIN_TOKEN);
      await page.getByRole('table', { name: /Loops \(all\)/ }).waitFor();
      // Written into the docs only when asked (PN_UPDATE_SCREENSHOTS=1), so a test run leaves the tree clean.
      const images = process.env.PN_UPDATE_SCREENSHOTS === '1' ? resolve(repo, 'docs/images') : shotsDir.file('images');
      mkdirSync(images, { recursive: true });
      await page.screenshot({ path: resolve(images, 'console-loops.png'), fullPage: true });
      await page.getByRole('link', { name: session.busyLoopId }).click();
      await heading(page, `Loop ${session.busyLoopId}`);
      await page.getByText('Live: new records appear').waitFor();
      await page.getByRole('table', { name: /Lifecycle/ }).waitFor();
      await page.screenshot({ path: resolve(images, 'console-loop.png'), fullPage: true });
      for (const shot of ['console-loops.png', 'console-loop.png']) {
        // A PNG of a real page, not an empty frame.
        const bytes = readFileSync(resolve(images, shot));
        expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect(bytes.length).toBeGreaterThan(10_000);
      }
      // The shots' server is another origin than the suite's: its tab is checked here.
      expect(opened.requests.filter((url) => !url.startsWith(`${shots.url}/`))).toEqual([]);
      tabs.splice(tabs.indexOf(opened), 1);
      expect(opened.cspReports).toEqual([]);
      await opened.close();
    } finally {
      await shots.stop();
      shotsDir.remove();
    }
  });

  /**
   * Waits until the live journal has caught up: the loop view's timeline (this loop's records by
   * default) shows the loop's newest record; for a loop with none, the whole session's is shown
   * for a moment to see the session's newest one.
   */
  async function journalDrawn(page: Page, session: SeededSession, loopId: string): Promise<void> {
    const { records } = await client(session).journal(session.sessionId);
    const mine = records.filter((record) => record.loop_id === loopId);
    if (mine.length > 0) {
      await page.locator(`table.timeline tr[data-sequence="${mine.at(-1)!.sequence}"]`).waitFor();
      return;
    }
    const onlyThisLoop = page.getByLabel("Only this loop's records");
    await onlyThisLoop.uncheck();
    await page.locator(`table.timeline tr[data-sequence="${records.at(-1)!.sequence}"]`).waitFor();
    await onlyThisLoop.check();
  }

  function admin(): ProcessNotificationsClient {
    return new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN });
  }

  function client(session: SeededSession): ProcessNotificationsClient {
    return new ProcessNotificationsClient({ baseUrl: server.url, token: session.token });
  }
});

describeBrowser('the web console across a server restart, and turned off', () => {
  it('resumes the live journal after the connection drops, with Last-Event-ID: nothing missed, nothing twice', async () => {
    const dir = tempDir();
    const browser = await ConsoleBrowser.launch();
    let server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('restart.db')}` });
    try {
      const port = new URL(server.url).port;
      const session = await seedConsole(server.url);
      const opened = await browser.tab();
      const page = opened.page;
      await page.goto(`${server.url}/console/sessions/${session.sessionId}/loops/${session.idleLoopId}`);
      await opened.signIn(SERVER_ADMIN_TOKEN);
      await page.getByText('Live: new records appear').waitFor();
      // The whole session's journal (the view shows this loop's records by default).
      await page.getByLabel("Only this loop's records").uncheck();
      const sequences = async (): Promise<string[]> =>
        page.locator('table.timeline tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-sequence')!));
      // The stream may be live before the seeded records are drawn: wait for the newest of them.
      const seeded = (await new ProcessNotificationsClient({ baseUrl: server.url, token: session.token }).journal(session.sessionId))
        .records;
      await page.locator(`table.timeline tr[data-sequence="${seeded.at(-1)!.sequence}"]`).waitFor({ timeout: 15_000 });
      const before = await sequences();
      expect(before).toHaveLength(seeded.length);

      await server.stop();
      await page.getByText('Reconnecting').waitFor();
      server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('restart.db')}`, PORT: port });
      const client = new ProcessNotificationsClient({ baseUrl: server.url, token: session.token });
      const { sequence } = await client.deliverCompletion(completion(session.sessionId, session.idleLoopId, 'after-restart'));
      await page.locator(`table.timeline tr[data-sequence="${sequence}"]`).waitFor({ timeout: 15_000 });
      const after = await sequences();
      expect(after).toEqual([String(sequence), ...before]);
      expect(opened.requests.filter((url) => url.includes('/events')).length).toBeGreaterThan(1);
      await opened.close();
    } finally {
      await browser.close();
      await server.stop();
      dir.remove();
    }
    // Two server starts, which take long on a busy machine.
  }, 180_000);

  it('PN_CONSOLE=off answers 404 at /console and leaves the API', async () => {
    const dir = tempDir();
    const server = await ServerProcess.start({ PN_DATABASE_URL: `sqlite:${dir.file('off.db')}`, PN_CONSOLE: 'off' });
    try {
      for (const path of ['/', '/console', '/console/', '/console/sessions', '/console/assets/index.js']) {
        expect({ path, status: (await fetch(`${server.url}${path}`, { redirect: 'manual' })).status }).toEqual({ path, status: 404 });
      }
      expect((await fetch(`${server.url}/`)).headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const session = await new ProcessNotificationsClient({ baseUrl: server.url, token: SERVER_ADMIN_TOKEN }).createSession();
      expect(session.session_id).toEqual(expect.any(String));
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
      dir.remove();
    }
  });
});

describeBrowser('the web console on PostgreSQL: a dead node', () => {
  let pgAdmin: DataSource | undefined;
  let schema: { name: string; databaseUrl: string };
  let server: ServerProcess | undefined;
  let browser: ConsoleBrowser | undefined;

  beforeAll(async () => {
    pgAdmin = await connectPostgresAdmin();
    if (!pgAdmin) return;
    schema = freshSchema();
    await pgAdmin.query(`CREATE SCHEMA "${schema.name}"`);
    [server, browser] = await Promise.all([ServerProcess.start({ PN_DATABASE_URL: schema.databaseUrl }), ConsoleBrowser.launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await pgAdmin?.query(`DROP SCHEMA IF EXISTS "${schema.name}" CASCADE`);
    await pgAdmin?.destroy();
  });

  it('lists a node whose heartbeat expired under Needs attention, and as dead on the nodes view', async () => {
    if (!pgAdmin || !server || !browser) return;
    // What a node killed a while ago leaves: its heartbeat row, expired, owning a session.
    const deadNodeId = randomUUID();
    const deadUrl = 'http://127.0.0.1:9';
    await pgAdmin.query(
      `INSERT INTO "${schema.name}".pn_nodes (node_id, url, expires_at, heartbeat_at)
       VALUES ($1, $2, now() - interval '1 minute', now() - interval '2 minutes')`,
      [deadNodeId, deadUrl],
    );
    const opened = await browser.tab();
    try {
      await opened.page.goto(`${server.url}/console`);
      await opened.signIn(SERVER_ADMIN_TOKEN);
      await heading(opened.page, 'Sessions');
      const dead = await tableRows(opened.page, /Dead nodes/);
      expect(dead.map((row) => [row[0], row[1]])).toEqual([[deadUrl, deadNodeId]]);

      await opened.page.getByRole('navigation').getByRole('link', { name: 'Nodes' }).click();
      await heading(opened.page, 'Nodes');
      const nodes = await tableRows(opened.page, /Nodes/);
      expect(nodes.find((row) => row[0] === deadNodeId)?.[2]).toBe('dead: its heartbeat expired');
      expect(nodes.filter((row) => row[2] === 'live')).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });
});
