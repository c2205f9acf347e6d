import { ValidateBy } from 'class-validator';

// RFC 3339 `date-time`: T or t, seconds required, optional fraction, Z or z or a ±hh:mm offset.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A point in time, exact to any number of fraction digits. */
export interface LifecycleInstant {
  /** Whole UTC seconds since the epoch; a leap second counts as the second before it. */
  readonly seconds: number;
  /** 1 for a leap second (`:60`), which comes after `:59` and before the next minute. */
  readonly leap: number;
  /** Fraction digits without trailing zeros. */
  readonly fraction: string;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * Parses an RFC 3339 `date-time` exactly as its grammar reads, or returns undefined.
 * Impossible dates and times (Feb 30, month 13, hour 24, offset +24:00) are rejected; second 60
 * is accepted only where a leap second can fall, at 23:59 UTC.
 */
export function parseLifecycleTimestamp(value: unknown): LifecycleInstant | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const sign = match[8] === '-' ? -1 : 1;
  const offsetHours = match[8] ? Number(match[9]) : 0;
  const offsetMinutes = match[8] ? Number(match[10]) : 0;
  if (month < 1 || month > 12 || day < 1) return undefined;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return undefined;
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = sign * (offsetHours * 60 + offsetMinutes);
  if (second === 60 && (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 !== 1439) return undefined;
  // setUTCFullYear keeps years 0-99 literal, which Date.UTC would move to the 1900s.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59));
  return {
    seconds: date.getTime() / 1000 - offset * 60,
    leap: second === 60 ? 1 : 0,
    fraction: (match[7] ?? '').replace(/0+$/, ''),
  };
}

/** Negative when `a` is before `b`, 0 when they are the same instant, positive after. */
export function compareLifecycleInstants(a: LifecycleInstant, b: LifecycleInstant): number {
  if (a.seconds !== b.seconds) return a.seconds - b.seconds;
  if (a.leap !== b.leap) return a.leap - b.leap;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const left = a.fraction.padEnd(width, '0');
  const right = b.fraction.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

/**
 * A lifecycle timestamp: an RFC 3339 `date-time`, kept exactly as sent, that is not before any
 * of the `notBefore` fields (compared as instants; a field that is absent or itself invalid is
 * skipped, since it fails on its own).
 * @param notBefore properties of the same object this one must not precede @default []
 */
export function LifecycleTimestamp(notBefore: readonly string[] = []): PropertyDecorator {
  const earlierField = (value: unknown, object: object): string | undefined => {
    const instant = parseLifecycleTimestamp(value);
    if (!instant) return undefined;
    return notBefore.find((property) => {
      const other = parseLifecycleTimestamp((object as Record<string, unknown>)[property]);
      return other !== undefined && compareLifecycleInstants(instant, other) < 0;
    });
  };
  return ValidateBy({
    name: 'isLifecycleTimestamp',
    validator: {
      validate: (value, args) => parseLifecycleTimestamp(value) !== undefined && earlierField(value, args!.object) === undefined,
      defaultMessage: (args) => {
        const earlier = parseLifecycleTimestamp(args?.value) && earlierField(args!.value, args!.object);
        return earlier
          ? `${args?.property} must not be before ${earlier}`
          : `${args?.property} must be an RFC 3339 date-time (e.g. 2026-11-01T10:00:00Z)`;
      },
    },
  });
}
