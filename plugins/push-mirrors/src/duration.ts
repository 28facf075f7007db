/** Go's time.Duration text ("8h0m0s", "1h30m", "90s", "0"), as Gitea reads and writes mirror intervals. */

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds (whole, rounded down) of a Go duration string, or null when it is not one. Negative durations are refused. */
export function parseGoDuration(text: string): number | null {
  const s = text.trim();
  if (s === '0' || s === '+0') return 0;
  const body = s.startsWith('+') ? s.slice(1) : s;
  if (!body) return null;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) return null;
    total += Number(m[1]) * UNITS[m[2]];
    at = part.lastIndex;
  }
  if (!Number.isFinite(total) || total > 100 * 365 * 86400) return null;
  return Math.floor(total + 1e-9);
}

/** Go's Duration.String() of whole seconds: "8h0m0s", "10m0s", "45s", "0s". */
export function formatGoDuration(seconds: number): string {
  if (seconds <= 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}
