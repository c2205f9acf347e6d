import axe from 'axe-core';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); PN_CHROMIUM names another build. */
export const CHROMIUM = process.env.PN_CHROMIUM ?? '/usr/bin/chromium';

// Headless, and quiet: this machine's network is closed, so Chromium's own background traffic
// (updates, sync, QUIC probes) would only be refused, many times over.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser tests can run. Without a browser they are skipped, except on CI
 * (`CI=true`), where they fail instead: they can never go missing unnoticed.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') return true; // launching fails, and says why
  console.warn(`No browser at ${CHROMIUM} (apt-get install chromium): skipping the console's browser tests.`);
  return false;
}

/** Headless Chromium with a fresh profile of its own, removed on close. */
export class ConsoleBrowser {
  private constructor(
    readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<ConsoleBrowser> {
    if (!existsSync(CHROMIUM))
      throw new Error(`no browser at ${CHROMIUM}: the console's browser tests need one (apt-get install chromium)`);
    const profile = await mkdtemp(join(tmpdir(), 'pn-console-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 860 },
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    return new ConsoleBrowser(context, profile);
  }

  /** A new tab (its own sessionStorage), which records every request it makes and every CSP refusal. */
  async tab(): Promise<ConsoleTab> {
    return new ConsoleTab(await this.context.newPage());
  }

  async close(): Promise<void> {
    await this.context.close();
    await rm(this.profile, { recursive: true, force: true });
  }
}

/** One axe-core finding. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

export class ConsoleTab {
  /** Every URL the tab requested. */
  readonly requests: string[] = [];
  /** The Authorization header of every request that had one. */
  readonly authorizations: string[] = [];
  /** What the browser said on its console about the Content-Security-Policy. */
  readonly cspReports: string[] = [];

  constructor(readonly page: Page) {
    page.on('request', (request) => {
      this.requests.push(request.url());
      const authorization = request.headers().authorization;
      if (authorization) this.authorizations.push(authorization);
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) this.cspReports.push(message.text());
    });
  }

  /** Signs in on whatever view is shown, and waits for the form to go. */
  async signIn(token: string): Promise<void> {
    await this.page.getByLabel('Token').fill(token);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await this.page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /** axe-core's serious and critical findings on the page as it is now. */
  async seriousViolations(): Promise<AxeViolation[]> {
    // Evaluated by the browser's debugger protocol, which the page's CSP does not govern.
    await this.page.evaluate(axe.source);
    const violations = (await this.page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`)) as AxeViolation[];
    return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  }

  /** The tab's sessionStorage, as the page sees it. */
  async sessionStorage(): Promise<Record<string, string>> {
    return (await this.page.evaluate('Object.fromEntries(Object.entries(sessionStorage))')) as Record<string, string>;
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
