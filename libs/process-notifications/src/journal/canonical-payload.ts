/**
 * The payload a validated DTO is journaled with: its schema's properties in schema order, only
 * those present. Nothing per-attempt goes in, so an identical retry is byte-identical and its
 * fingerprint matches. Typed by the properties named: a DTO's required fields are present once
 * it is validated, its optional ones stay optional.
 */
export function canonicalPayload<T extends object, K extends keyof T>(dto: T, properties: readonly K[]): Pick<T, K> {
  const payload: Partial<Pick<T, K>> = {};
  for (const property of properties) {
    const value = dto[property];
    if (value !== undefined) payload[property] = value;
  }
  return payload as Pick<T, K>;
}
