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
