import { ProcessNotificationsClient, type RetryNotice } from 'process-notifications-client';

/** The typed client, as the console uses it: against the server that served the page. */
export interface ConsoleClients {
  /** Reads and actions: a few quick retries of what the contract says to retry, then the error is shown. */
  readonly api: ProcessNotificationsClient;
  /** The live journal: reconnects for as long as the view is open, resuming after the last event. */
  readonly live: (onRetry: (notice: RetryNotice) => void) => ProcessNotificationsClient;
}

export function consoleClients(token: string): ConsoleClients {
  const baseUrl = location.origin;
  return {
    api: new ProcessNotificationsClient({ baseUrl, token, retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 } }),
    live: (onRetry) => new ProcessNotificationsClient({ baseUrl, token, retry: { baseDelayMs: 250, maxDelayMs: 5_000 }, onRetry }),
  };
}
