import { compareLifecycleInstants, parseLifecycleTimestamp } from './lifecycle-timestamp.decorator.js';

describe('parseLifecycleTimestamp (RFC 3339 date-time)', () => {
  it.each([
    '2026-11-01T10:00:00Z',
    '2026-11-01t10:00:00z',
    '2026-11-01T10:00:00.5Z',
    '2026-11-01T10:00:00.123456789+05:30',
    '2026-11-01T10:00:00-00:00',
    '2026-11-01T10:00:00+23:59',
    '2024-02-29T00:00:00Z',
    '2000-02-29T23:59:59Z',
    '0001-01-01T00:00:00Z',
    '0099-06-15T12:00:00Z',
    '9999-12-31T23:59:59Z',
    '2016-12-31T23:59:60Z',
    '2016-12-31T15:59:60-08:00',
  ])('accepts %s', (value) => {
    expect(parseLifecycleTimestamp(value)).toBeDefined();
  });

  it.each([
    ['space separator', '2026-11-01 10:00:00Z'],
    ['missing offset', '2026-11-01T10:00:00'],
    ['missing seconds', '2026-11-01T10:00Z'],
    ['February 30', '2026-02-30T10:00:00Z'],
    ['February 29 of a common year', '2023-02-29T10:00:00Z'],
    ['February 29 of 1900', '1900-02-29T10:00:00Z'],
    ['April 31', '2026-04-31T10:00:00Z'],
    ['month 13', '2026-13-01T10:00:00Z'],
    ['month 0', '2026-00-01T10:00:00Z'],
    ['day 0', '2026-11-00T10:00:00Z'],
    ['hour 24', '2026-11-01T24:00:00Z'],
    ['minute 60', '2026-11-01T10:60:00Z'],
    ['second 61', '2026-11-01T10:00:61Z'],
    ['leap second away from 23:59 UTC', '2026-11-01T10:00:60Z'],
    ['offset hour 24', '2026-11-01T10:00:00+24:00'],
    ['offset minute 60', '2026-11-01T10:00:00+05:60'],
    ['offset without colon', '2026-11-01T10:00:00+0530'],
    ['offset hours only', '2026-11-01T10:00:00+05'],
    ['empty fraction', '2026-11-01T10:00:00.Z'],
    ['comma fraction', '2026-11-01T10:00:00,5Z'],
    ['one-digit day', '2026-11-1T10:00:00Z'],
    ['expanded year', '+12026-11-01T10:00:00Z'],
    ['basic format', '20261101T100000Z'],
    ['leading space', ' 2026-11-01T10:00:00Z'],
    ['trailing newline', '2026-11-01T10:00:00Z\n'],
    ['full-width digits', '２０２６-11-01T10:00:00Z'],
    ['free text', 'yesterday'],
    ['empty string', ''],
    ['a number', 1_798_797_600],
    ['null', null],
  ])('rejects %s', (_name, value) => {
    expect(parseLifecycleTimestamp(value)).toBeUndefined();
  });
});

describe('compareLifecycleInstants', () => {
  const compare = (a: string, b: string) => Math.sign(compareLifecycleInstants(parseLifecycleTimestamp(a)!, parseLifecycleTimestamp(b)!));

  it('treats one instant written with different offsets, cases and fraction widths as equal', () => {
    expect(compare('2026-11-01T10:00:00Z', '2026-11-01T12:00:00+02:00')).toBe(0);
    expect(compare('2026-11-01T10:00:00Z', '2026-11-01t05:30:00-04:30')).toBe(0);
    expect(compare('2026-11-01T00:30:00+01:00', '2026-10-31T23:30:00z')).toBe(0);
    expect(compare('2026-11-01T10:00:00.5Z', '2026-11-01T10:00:00.500000Z')).toBe(0);
    expect(compare('2026-11-01T10:00:00.000Z', '2026-11-01T10:00:00Z')).toBe(0);
  });

  it('orders by instant, exact beyond milliseconds', () => {
    expect(compare('2026-11-01T10:00:00Z', '2026-11-01T10:00:00.0000001Z')).toBe(-1);
    expect(compare('2026-11-01T10:00:00.9999999Z', '2026-11-01T10:00:01Z')).toBe(-1);
    expect(compare('2026-11-01T11:59:59.999+02:00', '2026-11-01T10:00:00Z')).toBe(-1);
    expect(compare('2026-11-01T10:00:00Z', '2026-11-01T09:59:59.999Z')).toBe(1);
    expect(compare('0099-01-01T00:00:00Z', '1999-01-01T00:00:00Z')).toBe(-1);
  });

  it('puts a leap second after :59 and before the next minute', () => {
    expect(compare('2016-12-31T23:59:59.999Z', '2016-12-31T23:59:60Z')).toBe(-1);
    expect(compare('2016-12-31T23:59:60.5Z', '2017-01-01T00:00:00Z')).toBe(-1);
    expect(compare('2016-12-31T23:59:60Z', '2016-12-31T15:59:60-08:00')).toBe(0);
  });
});
