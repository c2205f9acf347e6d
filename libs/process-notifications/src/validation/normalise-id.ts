/**
 * The library's one id normaliser: ids (UUIDs) are stored and compared in lower case, so an
 * upper-case retry is the same id, not another one. It runs once, where an id enters the library:
 * the DTOs' transforms (HTTP and validated payloads, `CanonicalUuid`), the methods embedders call
 * (`ProcessNotificationsService`, its journal API, through `idOf` and `requireCanonicalUuid`), and
 * the public commands' constructors. Everything past those edges takes ids as given: already
 * normalised. A value that is not a string is handed back as it is, for validation to refuse.
 */
export function normaliseId<T>(id: T): T {
  return (typeof id === 'string' ? id.toLowerCase() : id) as T;
}
