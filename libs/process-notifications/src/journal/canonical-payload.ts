/**
 * The payload a validated DTO is journaled with: its schema's properties in schema order, only
 * those present. Nothing per-attempt goes in, so an identical retry is byte-identical and its
 * fingerprint matches.
 */
export function canonicalPayload(dto: object, properties: readonly string[]): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const property of properties) {
    const value = (dto as Record<string, unknown>)[property];
    if (value !== undefined) payload[property] = value;
  }
  return payload;
}
