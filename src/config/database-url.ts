// The URL forms dataSourceOptionsFromUrl understands (spec section 8).
const SUPPORTED = /^(?:sqlite:.+|postgres(?:ql)?:\/\/.+)$/;

/** The URL with the password of its user info, if any, replaced by `***`: safe to print. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

/** Throws, naming PN_DATABASE_URL, when `url` is not a form the server can open. */
export function requireSupportedDatabaseUrl(url: string): string {
  if (!SUPPORTED.test(url)) {
    throw new Error(`PN_DATABASE_URL must be sqlite:<path>, sqlite::memory: or postgres://..., got "${redactDatabaseUrl(url)}"`);
  }
  return url;
}
