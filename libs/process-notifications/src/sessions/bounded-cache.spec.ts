import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('holds at most its capacity, dropping the least recently used entry', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    // A hit makes "a" the most recently used, so "b" is the one dropped next.
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('replacing a key neither grows the cache nor drops another entry', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    expect(cache.size).toBe(2);
    expect([cache.get('a'), cache.get('b')]).toEqual([10, 2]);
  });

  it('forgets a deleted key', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a capacity of %p', (capacity) => {
    expect(() => new BoundedCache(capacity)).toThrow('capacity must be a positive integer');
  });
});
