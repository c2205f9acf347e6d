/**
 * A map that holds at most `capacity` entries: setting one more drops the least recently used
 * (a hit counts as a use). For lookups whose source of truth is the database, so a dropped entry
 * costs one read, never an answer.
 */
export class BoundedCache<K, V> {
  // A Map iterates in insertion order: re-inserting on every use keeps the oldest first.
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, got ${String(capacity)}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
