/** A flag value that is not a duration in Prometheus syntax. */
export class PrometheusDurationError extends Error {
  override name = 'PrometheusDurationError';
}

const DAY_MS = 86_400_000;

/**
 * Prometheus's duration grammar (`model.ParseDuration`): whole numbers with units from the
 * largest to the smallest, each at most once, no spaces. Unlike Go durations it has days,
 * weeks and years (`8d`, `1w`, `1y` = 365 days), which is why upstream uses it for
 * `--history-length` and `--history-resolution`.
 */
const DURATION =
  /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNIT_MS = [365 * DAY_MS, 7 * DAY_MS, DAY_MS, 3_600_000, 60_000, 1000, 1];

/** Parses `text` (e.g. `8d`, `1h30m`, `500ms`; `0` is zero) into milliseconds; errors name `--flag`. */
export function parsePrometheusDuration(text: string, flag: string): number {
  // Prometheus accepts a bare 0 as the only unit-less duration.
  if (text === '0') return 0;
  const match = text === '' ? null : DURATION.exec(text);
  if (match === null) {
    throw new PrometheusDurationError(
      `--${flag}: '${text}' is not a Prometheus duration such as 30m, 1h30m, 8d or 1w (units y, w, d, h, m, s, ms, largest first)`,
    );
  }
  const ms = UNIT_MS.reduce(
    (sum, unitMs, index) => sum + Number(match[index + 1] ?? 0) * unitMs,
    0,
  );
  if (!Number.isSafeInteger(ms)) {
    throw new PrometheusDurationError(`--${flag}: '${text}' is out of range`);
  }
  return ms;
}
