// The tab's sessionStorage only (spec section 12.2): gone with the tab, never in a cookie, a URL
// or the page, and not shared with other tabs.
const KEY = 'process-notifications-console.token';

/** Where the console keeps the token it signed in with. */
export const tokenStore = {
  read(): string | undefined {
    return sessionStorage.getItem(KEY) ?? undefined;
  },
  save(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  forget(): void {
    sessionStorage.removeItem(KEY);
  },
};
