// Parsers of flag values, with the error every bad value gets: the flag's name and why.

export class FlagError extends Error {
  override name = 'FlagError';
}

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go-style duration (`90s`, `1m30s`, `1h`, `500ms`) in milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    throw new FlagError(
      `--${flag}: '${text}' is not a duration such as 30s, 1m or 1h30m`,
    );
  }
  const ms = parts.reduce(
    (sum, [, value, unit]) =>
      sum + Number(value) * (DURATION_UNITS_MS[unit ?? ''] ?? 0),
    0,
  );
  if (ms <= 0) throw new FlagError(`--${flag} must be positive, got '${text}'`);
  return ms;
}

/** A whole number from 1 (a worker count, an interval count, a rounding step). */
export function parsePositiveInteger(text: string, flag: string): number {
  const value = /^[1-9]\d*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new FlagError(
      `--${flag} must be a whole number from 1, got '${text}'`,
    );
  return value;
}

/** A decimal number within [min, max] (a percentile, a ratio, a fraction). */
export function parseNumberIn(
  text: string,
  flag: string,
  min: number,
  max = Infinity,
): number {
  const value = /^-?\d+(?:\.\d*)?(?:e[+-]?\d+)?$/i.test(text)
    ? Number(text)
    : Number.NaN;
  if (!(value >= min && value <= max)) {
    const range = [
      min === -Infinity ? '' : ` from ${min}`,
      max === Infinity ? '' : ` to ${max}`,
    ].join('');
    throw new FlagError(`--${flag} must be a number${range}, got '${text}'`);
  }
  return value;
}

/**
 * Arguments as Go's flag package reads them, in the form `node:util` parseArgs reads:
 * `-name` is `--name`, and a boolean flag may say `--name=true` or `--name=false`. Upstream
 * manifests use both, so they must start unchanged. `--name=false` becomes `--no-name`, so
 * callers parse with `allowNegative: true`: a flag that defaults to true can be turned off,
 * and the last of several settings wins, as in Go.
 */
export function goStyleArgs(
  argv: readonly string[],
  booleanFlags: ReadonlySet<string>,
): string[] {
  const args: string[] = [];
  for (const raw of argv) {
    const arg = /^-[^-]/.test(raw) ? `-${raw}` : raw;
    const match = /^--([^=]+)=(.*)$/s.exec(arg);
    const [, name = '', value = ''] = match ?? [];
    if (match === null || !booleanFlags.has(name)) {
      args.push(arg);
      continue;
    }
    if (value === 'true') args.push(`--${name}`);
    else if (value === 'false') args.push(`--no-${name}`);
    else throw new FlagError(`--${name} must be true or false, got '${value}'`);
  }
  return args;
}
