// Small display helpers shared by components.

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function ms(n: number): string {
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** Timestamps from the shell are Unix milliseconds. */
export function date(t: number): string {
  return new Date(t).toLocaleString();
}

export function json(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

export function keepAlive(secs: number): string {
  if (secs < 0) return 'forever';
  if (secs % 3600 === 0) return `${secs / 3600} h`;
  if (secs % 60 === 0) return `${secs / 60} min`;
  return `${secs} s`;
}

/** A duration in seconds, as a person says it: "40 s", "3 min", "1 h 5 min". */
export function timeLeft(secs: number): string {
  if (secs < 60) return `${Math.max(1, Math.round(secs))} s`;
  const min = Math.round(secs / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** The day of an RFC 3339 time as the person's locale writes it ("Mar 14, 2026"); its date part when it does not parse. */
export function day(rfc3339: string): string {
  const t = Date.parse(rfc3339);
  return Number.isNaN(t) ? rfc3339.slice(0, 10) : new Date(t).toLocaleDateString(undefined, { dateStyle: 'medium' });
}
