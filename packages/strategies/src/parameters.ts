import { FlagError, parseDuration } from '@tandem/flags';
import { parseMemoryBytes, QuantityError } from '@tandem/vpa-api';
import type { ParameterValue } from './strategy.js';

/**
 * One tunable of a strategy. Its name is what follows `tandem.dev/` in a VPA annotation;
 * its text form is what an annotation holds: a plain number, a duration (`12h`), a memory
 * quantity (`100Mi`) or `true`/`false`.
 */
export interface ParameterSpec {
  readonly kind: 'number' | 'duration' | 'memory' | 'boolean';
  readonly fallback: ParameterValue;
  /** Smallest and largest accepted numbers (durations in ms, memory in bytes). */
  readonly min?: number;
  readonly max?: number;
  readonly summary: string;
  /**
   * The strategy's own fallback holds even where the recommender's upstream flag for this
   * parameter is set (see vpaStrategy): for strategies whose rule is a different number.
   */
  readonly ownFallback?: boolean;
}

export type ParameterSpecs = Readonly<Record<string, ParameterSpec>>;

/** The values of every parameter in `specs`: the given ones, the others at their fallback. */
export type ParameterValues = Readonly<Record<string, ParameterValue>>;

/**
 * Reads `texts` against `specs`: an unknown name or a value out of its kind or range is an
 * error string naming the parameter and what it accepts. Never throws.
 */
export function readParameters(
  strategy: string,
  specs: ParameterSpecs,
  texts: Readonly<Record<string, string>>,
): { values: ParameterValues } | { error: string } {
  const values: Record<string, ParameterValue> = {};
  for (const [name, spec] of Object.entries(specs))
    values[name] = spec.fallback;
  for (const [name, text] of Object.entries(texts)) {
    // Own names only: `toString` is no parameter, whatever Object.prototype says.
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec === undefined) {
      const known = Object.keys(specs);
      return {
        error:
          `strategy '${strategy}' has no parameter '${name}'` +
          (known.length > 0
            ? ` (it has ${known.join(', ')})`
            : ' (it takes none)'),
      };
    }
    const value = parseValue(spec, text);
    if (typeof value === 'string')
      return {
        error: `strategy '${strategy}' parameter '${name}': ${value}`,
      };
    values[name] = value;
  }
  return { values };
}

/** The value, or why `text` is not one. */
function parseValue(
  spec: ParameterSpec,
  text: string,
): ParameterValue | string {
  if (spec.kind === 'boolean') {
    if (text === 'true' || text === 'false') return text === 'true';
    return `'${text}' is not true or false`;
  }
  const value = parseNumberOfKind(spec.kind, text);
  if (typeof value === 'string') return value;
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = spec;
  if (value < min || value > max)
    return `'${text}' is out of range: it must be from ${describe(spec, min)} to ${describe(spec, max)}`;
  return value;
}

function parseNumberOfKind(
  kind: 'number' | 'duration' | 'memory',
  text: string,
): number | string {
  switch (kind) {
    case 'number': {
      const value = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
      return Number.isFinite(value) ? value : `'${text}' is not a number`;
    }
    case 'duration':
      try {
        return parseDuration(text, 'x');
      } catch (error) {
        if (!(error instanceof FlagError)) throw error;
        return `'${text}' is not a duration such as 12h or 90m`;
      }
    case 'memory':
      try {
        return parseMemoryBytes(text);
      } catch (error) {
        if (!(error instanceof QuantityError)) throw error;
        return `'${text}' is not a memory quantity such as 100Mi`;
      }
  }
}

function describe(spec: ParameterSpec, value: number): string {
  const text = parameterText(spec, value);
  return spec.kind === 'memory' ? `${text} bytes` : text;
}

/** Duration units from the largest, for the shortest exact text of a duration. */
const DURATION_UNITS: readonly (readonly [string, number])[] = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * The text `readParameters` reads back as `value`: the inverse of the parser, so a
 * strategy's parameters in force can be handed to `configureStrategy` again (durations in
 * the largest unit that divides them, memory in bytes).
 */
export function parameterText(
  spec: ParameterSpec,
  value: ParameterValue,
): string {
  if (typeof value === 'boolean') return String(value);
  switch (spec.kind) {
    case 'duration': {
      const unit = DURATION_UNITS.find(([, ms]) => value % ms === 0);
      return unit === undefined
        ? `${plainDecimal(value)}ms`
        : `${value / unit[1]}${unit[0]}`;
    }
    case 'memory':
      return String(value);
    default:
      return plainDecimal(value);
  }
}

/**
 * `value` without an exponent, which the number and duration parsers do not take: the
 * shortest digits that read back as the same double, shifted into place.
 */
function plainDecimal(value: number): string {
  const [mantissa = '', exponentText] = String(value).split('e');
  if (exponentText === undefined) return mantissa;
  const sign = value < 0 ? '-' : '';
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const exponent = Number(exponentText);
  return exponent < 0
    ? `${sign}0.${'0'.repeat(-exponent - 1)}${whole}${fraction}`
    : `${sign}${whole}${fraction}${'0'.repeat(exponent - fraction.length)}`;
}

/** A number parameter's value (the specs guarantee the kind). */
export function numberParameter(values: ParameterValues, name: string): number {
  const value = values[name];
  if (typeof value !== 'number')
    throw new TypeError(`parameter '${name}' is not a number`);
  return value;
}
