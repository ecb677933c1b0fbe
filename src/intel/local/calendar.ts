/**
 * Calendar-day arithmetic on "YYYY-MM-DD" strings. Days are counted in UTC so that adding
 * a day never meets a daylight-saving shift.
 */

/** A calendar day, YYYY-MM-DD. */
export type Day = string;

const pad = (n: number) => String(n).padStart(2, "0");

/** The UTC calendar day of an instant (shift the instant first to read another zone's day). */
export const dayOf = (d: Date): Day => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

const parts = (day: Day) => day.split("-").map(Number) as [number, number, number];

export function addDays(day: Day, n: number): Day {
  const [y, m, d] = parts(day);
  return dayOf(new Date(Date.UTC(y, m - 1, d + n)));
}

/** The first day numbered `dom` on or after `from`, skipping months too short to have it. */
export function nextDayOfMonth(from: Day, dom: number): Day {
  const [y, m, d] = parts(from);
  for (let k = dom >= d ? 0 : 1; k < 14; k++) {
    const candidate = new Date(Date.UTC(y, m - 1 + k, dom));
    if (candidate.getUTCDate() === dom) return dayOf(candidate);
  }
  return from;
}

/** Day `dom` of the same month as `day`, when it comes later in that month. */
export function sameMonthDay(day: Day, dom: number): Day | null {
  const [y, m, d] = parts(day);
  const candidate = new Date(Date.UTC(y, m - 1, dom));
  return dom > d && candidate.getUTCMonth() === m - 1 ? dayOf(candidate) : null;
}

/** The same month and day a year earlier (28 February for 29 February). */
export function yearEarlier(day: Day): Day {
  const [y, m, d] = parts(day);
  const candidate = new Date(Date.UTC(y - 1, m - 1, d));
  return candidate.getUTCDate() === d ? dayOf(candidate) : dayOf(new Date(Date.UTC(y - 1, m - 1, d - 1)));
}

/** Whole days from `a` to `b` (negative when `b` is earlier). */
export function daysBetween(a: Day, b: Day): number {
  const [ya, ma, da] = parts(a);
  const [yb, mb, db] = parts(b);
  return Math.round((Date.UTC(yb, mb - 1, db) - Date.UTC(ya, ma - 1, da)) / 86_400_000);
}

/** The first `month`/`day` on or after `from` (null for a day no month has, like 31/02). */
export function nextDate(from: Day, month: number, day: number): Day | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const [y] = parts(from);
  for (const year of [y, y + 1, y + 2, y + 3, y + 4]) {
    const candidate = new Date(Date.UTC(year, month - 1, day));
    if (candidate.getUTCMonth() !== month - 1) continue;
    const found = dayOf(candidate);
    if (found >= from) return found;
  }
  return null;
}
