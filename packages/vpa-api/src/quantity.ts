/**
 * Kubernetes `resource.Quantity`, exact.
 *
 * A parsed quantity is held as a BigInt count of nano-units (10^-9): apimachinery itself
 * rounds every parsed value to nano precision, so nano-units represent every quantity
 * losslessly and no float ever touches a resource amount.
 *
 * Rules carried over from apimachinery (`k8s.io/apimachinery/pkg/api/resource`):
 *
 * - Grammar: `[+-]` digits `[.digits]` suffix, where a number may be `1`, `1.`, `.5` or `1.5`
 *   and the suffix is a DecimalSI one (`n u m '' k M G T P E`), a BinarySI one
 *   (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`, `e+6`). `E` alone is exa;
 *   `E5` is an exponent.
 * - The suffix decides the format, which the quantity keeps and re-uses when printed.
 * - Values finer than a nano are rounded away from zero to the next nano (`0.1n` → `1n`),
 *   so asking for "a little" never becomes "nothing".
 * - BinarySI values are silently capped at 2^63-1 in magnitude (`8Ei` → `9223372036854775807`);
 *   a BinarySI value strictly between -1 and 1 switches to DecimalSI. Decimal values are
 *   not capped.
 *
 * Canonical form (`toString()`), as apimachinery's `CanonicalizeBytes`:
 * - Zero prints as `0`.
 * - DecimalSI / DecimalExponent: strip trailing decimal zeros into the exponent, then lower
 *   the exponent to a multiple of 3 (multiplying the mantissa), so there are no fractional
 *   digits and the suffix is as large as possible: `1.5` → `1500m`, `1000m` → `1`,
 *   `1.5k` → `1500`, `0.1` → `100m`, `1e3` → `1e3`, `1.5e3` → `1500`. DecimalSI exponents
 *   beyond `E` (10^18) print as an exponent (`1000E` → `1e21`).
 * - BinarySI: a value with magnitude below 1024, or with a fractional part, prints as
 *   DecimalSI (`0.5Ki` → `512`, `1.0001Ki` → `1024102400u`). Otherwise the largest
 *   power of 1024 that divides it exactly becomes the suffix: `1024Ki` → `1Mi`,
 *   `1.5Gi` → `1536Mi`, `1000Mi` → `1000Mi`, `1023` → `1023`.
 *
 * Deliberate differences from apimachinery, all outside valid resource values:
 * - `toString()` is always canonical. apimachinery's `String()` echoes the input verbatim
 *   when a cheap check calls it canonical, which lets `+1`, `01` and `1.500` through as typed.
 * - A number needs at least one digit. apimachinery's scanner reads digit-less text such as
 *   `+`, `.` or `m` as zero, but the OpenAPI pattern the API server applies to CRD
 *   quantities rejects it, and so do we.
 * - Exponents must fit in an int32 (Go truncates them silently) and values above 10^1000 are
 *   refused, so a hostile `1e999999999` cannot make us allocate a gigantic integer.
 * - `value()` / `milliValue()` return exact BigInts instead of overflowing int64.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** Thrown for text that is not a Kubernetes quantity, or a number that cannot become one. */
export class QuantityError extends Error {
  constructor(
    message: string,
    /** The offending input, as given. */
    readonly input: string,
  ) {
    super(message);
    this.name = 'QuantityError';
  }
}

const NANOS_PER_UNIT = 10n ** 9n;
const NANOS_PER_MILLI = 10n ** 6n;
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT32 = 2 ** 31 - 1;
/** Largest power of ten a quantity may carry; a guard against absurd exponents. */
const MAX_DECIMAL_EXPONENT = 1000;

const DECIMAL_SUFFIX_EXPONENTS: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const DECIMAL_SUFFIX_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SUFFIX_EXPONENTS].map(([suffix, exponent]) => [exponent, suffix]),
);
/** Index i is the suffix for 1024^i. */
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const BINARY_SUFFIX_POWERS: ReadonlyMap<string, number> = new Map(
  BINARY_SUFFIXES.slice(1).map((suffix, index) => [suffix, index + 1]),
);

const NUMBER_AND_SUFFIX = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/s;
const EXPONENT_SUFFIX = /^[eE]([+-]?[0-9]+)$/;

/** An exact Kubernetes quantity. Immutable. */
export class Quantity {
  // Worked out on first use: a parsed quantity is shared by every reader of its text (see
  // parsedTexts), and the updater asks the same ones for their text and millis on each
  // pod it describes. ES private fields, so equality checks still see only the value.
  #text: string | undefined;
  #millis: bigint | undefined;
  #value: bigint | undefined;

  private constructor(
    /** The value in nano-units (value × 10^9), exact. */
    private readonly nanos: bigint,
    /** The notation the quantity prints in; set by the suffix it was parsed from. */
    readonly format: QuantityFormat,
  ) {}

  /** `millis` thousandths of a unit, e.g. millicores. Same as Go's `NewMilliQuantity`. */
  static fromMilli(millis: bigint, format: QuantityFormat): Quantity {
    return Quantity.fromNanos(millis * NANOS_PER_MILLI, format);
  }

  /** A whole number of units, e.g. bytes. Same as Go's `NewQuantity`. */
  static fromValue(value: bigint, format: QuantityFormat): Quantity {
    return Quantity.fromNanos(value * NANOS_PER_UNIT, format);
  }

  /** Exactly `nanos` × 10^-9 units, the finest amount a quantity can hold. */
  static fromNanos(nanos: bigint, format: QuantityFormat): Quantity {
    return new Quantity(nanos, format);
  }

  /** q × 1000 rounded up (away from zero), exact: Go's `MilliValue()` without the overflow. */
  milliValue(): bigint {
    return (this.#millis ??= divideAwayFromZero(this.nanos, NANOS_PER_MILLI));
  }

  /** q rounded up (away from zero) to a whole number, exact: Go's `Value()` without the overflow. */
  value(): bigint {
    return (this.#value ??= divideAwayFromZero(this.nanos, NANOS_PER_UNIT));
  }

  /** -1, 0 or 1 as this quantity is less than, equal to or greater than `other`. */
  cmp(other: Quantity): -1 | 0 | 1 {
    return compareBigInt(this.nanos, other.nanos);
  }

  /** The exact sum. Like Go's `Add`, a zero quantity takes the format of what is added to it. */
  add(other: Quantity): Quantity {
    const format = this.nanos === 0n ? other.format : this.format;
    return new Quantity(this.nanos + other.nanos, format);
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  sign(): -1 | 0 | 1 {
    return compareBigInt(this.nanos, 0n);
  }

  /** The canonical text apimachinery would serialise (see the rules at the top of this file). */
  toString(): string {
    return (this.#text ??= canonicalText(this.nanos, this.format));
  }

  toJSON(): string {
    return this.toString();
  }
}

function canonicalText(nanos: bigint, format: QuantityFormat): string {
  if (nanos === 0n) return '0';
  if (format === 'BinarySI') return formatBinary(nanos);
  return formatDecimal(nanos, format);
}

/**
 * Parses Kubernetes quantity text. A JSON number is accepted too, because resource lists in
 * CRDs are int-or-string and the API server stores `cpu: 1` as the number 1.
 */
export function parseQuantity(text: string | number): Quantity {
  if (typeof text === 'number') return parseQuantity(spellNumber(text));
  let parsed = parsedTexts.get(text);
  if (parsed === undefined) {
    parsed = parseQuantityText(text);
    if (parsedTexts.size >= PARSED_TEXTS_KEPT) parsedTexts.clear();
    parsedTexts.set(text, parsed);
  }
  return parsed;
}

/**
 * Texts parsed lately and their quantities. A cluster's quantities are few distinct texts
 * read over and over (a recommendation's target on each of its pods, every pod's
 * requests), and a parse costs BigInt arithmetic: the updater's first cycle spent a third
 * of its time here. Quantities are immutable, so sharing one is safe; the map is emptied
 * when full rather than tracking use, which keeps a hit at one lookup.
 */
const parsedTexts = new Map<string, Quantity>();
const PARSED_TEXTS_KEPT = 16_384;

function parseQuantityText(text: string): Quantity {
  const match = NUMBER_AND_SUFFIX.exec(text);
  const [, sign = '', integerDigits = '', fractionDigits = '', suffix = ''] =
    match ?? [];
  if (text === '') throw invalidQuantity(text, 'empty string');
  if (integerDigits === '' && fractionDigits === '') {
    throw invalidQuantity(
      text,
      'expected a number such as 1, 1.5 or .5 before any suffix',
    );
  }
  const { decimalExponent, binaryExponent, format } = interpretSuffix(
    text,
    suffix,
  );
  const magnitude = BigInt(integerDigits + fractionDigits || '0');
  const scale = decimalExponent - fractionDigits.length;
  if (scale > MAX_DECIMAL_EXPONENT) {
    throw invalidQuantity(
      text,
      `exponent too large (limit 10^${MAX_DECIMAL_EXPONENT})`,
    );
  }
  let nanos = scaleToNanos(magnitude << BigInt(binaryExponent), scale);
  let effectiveFormat = format;
  if (format === 'BinarySI') {
    // apimachinery caps binary quantities at MaxInt64 and prints fractions of one in DecimalSI.
    const cap = MAX_INT64 * NANOS_PER_UNIT;
    if (nanos > cap) nanos = cap;
    if (nanos > 0n && nanos < NANOS_PER_UNIT) effectiveFormat = 'DecimalSI';
  }
  return Quantity.fromNanos(sign === '-' ? -nanos : nanos, effectiveFormat);
}

/** Millicores as DecimalSI text: 587 → `587m`, 2000 → `2`, 1e14 → `100G`, 0 → `0`. */
export function formatCpuMillicores(millicores: number | bigint): string {
  // The fast path, for any positive safe integer: millicores unless whole cores, and whole
  // cores with the largest decimal suffix that keeps the number whole (1e14 → `100G`).
  if (typeof millicores === 'number' && Number.isSafeInteger(millicores)) {
    if (millicores > 0 && millicores % 1000 !== 0) return `${millicores}m`;
    if (millicores > 0) {
      let mantissa = millicores / 1000;
      let power = 0;
      while (mantissa % 1000 === 0) {
        mantissa /= 1000;
        power += 1;
      }
      return `${mantissa}${DECIMAL_SUFFIX_BY_EXPONENT.get(3 * power) ?? ''}`;
    }
  }
  return Quantity.fromMilli(
    toInt64(millicores, 'millicores'),
    'DecimalSI',
  ).toString();
}

/** Bytes as BinarySI text: 262144000 → `250Mi`, 628694953 → `628694953`, 1024 → `1Ki`. */
export function formatMemoryBytes(bytes: number | bigint): string {
  // The fast path covers 1 KiB up to 2^53 bytes: the largest power of 1024 that divides the
  // value exactly, else the plain integer. Below 1024 Kubernetes switches to DecimalSI
  // (1000 → `1k`), and that stays with the general code.
  if (
    typeof bytes === 'number' &&
    Number.isSafeInteger(bytes) &&
    bytes >= 1024
  ) {
    let mantissa = bytes;
    let power = 0;
    // Below 2^53 the power stays under 6 (Ei would need 2^60).
    while (mantissa % 1024 === 0) {
      mantissa /= 1024;
      power += 1;
    }
    return `${mantissa}${BINARY_SUFFIXES[power] ?? ''}`;
  }
  return Quantity.fromValue(toInt64(bytes, 'bytes'), 'BinarySI').toString();
}

/** Quantity text as millicores, rounded up (`MilliValue()`); throws beyond the safe integer range. */
export function parseCpuMillicores(text: string | number): number {
  return (
    plainDecimalRoundedUp(text, 3) ??
    toSafeNumber(parseQuantity(text).milliValue(), text, 'millicores')
  );
}

/** Quantity text as bytes, rounded up (`Value()`); throws beyond the safe integer range. */
export function parseMemoryBytes(text: string | number): number {
  return (
    plainDecimalRoundedUp(text, 0) ??
    toSafeNumber(parseQuantity(text).value(), text, 'bytes')
  );
}

/** Unsigned, suffix-free decimals short enough for exact arithmetic on doubles. */
const PLAIN_DECIMAL = /^(\d{1,12})(?:\.(\d+))?$/;
const POWERS_OF_TEN = [1, 10, 100, 1000] as const;

/**
 * The fast path of the two parsers above, for what usage data mostly holds (`0.067`,
 * `545458859`): `text × 10^digits` rounded up, exactly, without BigInt. At most 12
 * integer digits keep every intermediate below 2^53; anything else (signs, suffixes,
 * exponents, longer numbers) returns undefined and takes the general path, which gives
 * the same answer.
 */
function plainDecimalRoundedUp(
  text: string | number,
  digits: 0 | 3,
): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = PLAIN_DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, integerPart = '', fraction = ''] = match;
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  const roundsUp = /[1-9]/.test(fraction.slice(digits));
  return (
    Number(integerPart) * POWERS_OF_TEN[digits] +
    (kept === '' ? 0 : Number(kept)) +
    (roundsUp ? 1 : 0)
  );
}

interface SuffixMeaning {
  decimalExponent: number;
  binaryExponent: number;
  format: QuantityFormat;
}

function invalidQuantity(text: string, reason: string): QuantityError {
  return new QuantityError(`invalid quantity "${text}": ${reason}`, text);
}

function interpretSuffix(text: string, suffix: string): SuffixMeaning {
  const decimal = DECIMAL_SUFFIX_EXPONENTS.get(suffix);
  if (decimal !== undefined) {
    return { decimalExponent: decimal, binaryExponent: 0, format: 'DecimalSI' };
  }
  const binaryPower = BINARY_SUFFIX_POWERS.get(suffix);
  if (binaryPower !== undefined) {
    return {
      decimalExponent: 0,
      binaryExponent: 10 * binaryPower,
      format: 'BinarySI',
    };
  }
  const exponentDigits = EXPONENT_SUFFIX.exec(suffix)?.[1];
  if (exponentDigits === undefined) {
    throw invalidQuantity(
      text,
      `unknown suffix "${suffix}" (expected one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei, or an exponent such as e3)`,
    );
  }
  const exponent = Number(exponentDigits);
  if (Math.abs(exponent) > MAX_INT32) {
    throw invalidQuantity(
      text,
      `exponent ${exponentDigits} out of the int32 range`,
    );
  }
  return {
    decimalExponent: exponent,
    binaryExponent: 0,
    format: 'DecimalExponent',
  };
}

/** magnitude × 10^scale in nano-units, rounding any finer remainder away from zero. */
function scaleToNanos(magnitude: bigint, scale: number): bigint {
  const nanoScale = scale + 9;
  if (nanoScale >= 0) return magnitude * 10n ** BigInt(nanoScale);
  // A divisor longer than the magnitude leaves only "something" or "nothing"; skip the power.
  if (-nanoScale > magnitude.toString().length)
    return magnitude === 0n ? 0n : 1n;
  return divideAwayFromZero(magnitude, 10n ** BigInt(-nanoScale));
}

function formatDecimal(nanos: bigint, format: QuantityFormat): string {
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent -= 1;
  }
  const siSuffix =
    format === 'DecimalSI'
      ? DECIMAL_SUFFIX_BY_EXPONENT.get(exponent)
      : undefined;
  const suffix = siSuffix ?? (exponent === 0 ? '' : `e${exponent}`);
  return `${mantissa}${suffix}`;
}

function formatBinary(nanos: bigint): string {
  const wholeUnits = nanos / NANOS_PER_UNIT;
  const below1024 = wholeUnits > -1024n && wholeUnits < 1024n;
  if (below1024 || nanos % NANOS_PER_UNIT !== 0n)
    return formatDecimal(nanos, 'DecimalSI');
  let mantissa = wholeUnits;
  let power = 0;
  // Stop at Ei, the largest binary suffix; parsed BinarySI values never get past it anyway.
  while (power < BINARY_SUFFIXES.length - 1 && mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    power += 1;
  }
  return `${mantissa}${BINARY_SUFFIXES[power] ?? ''}`;
}

function divideAwayFromZero(dividend: bigint, divisor: bigint): bigint {
  const quotient = dividend / divisor; // BigInt division truncates toward zero
  if (dividend % divisor === 0n) return quotient;
  return dividend > 0n ? quotient + 1n : quotient - 1n;
}

function compareBigInt(a: bigint, b: bigint): -1 | 0 | 1 {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/** The text JSON would carry for a number; `String()` already spells it parseably. */
function spellNumber(value: number): string {
  if (!Number.isFinite(value)) {
    throw new QuantityError(
      `invalid quantity ${value}: not a finite number`,
      String(value),
    );
  }
  return String(value);
}

function toInt64(amount: number | bigint, unit: string): bigint {
  if (typeof amount === 'number' && !Number.isInteger(amount)) {
    throw new QuantityError(
      `cannot format ${amount} ${unit}: not a whole number`,
      String(amount),
    );
  }
  const whole = BigInt(amount);
  if (whole > MAX_INT64 || whole < MIN_INT64) {
    throw new QuantityError(
      `cannot format ${amount} ${unit}: outside the int64 range`,
      String(amount),
    );
  }
  return whole;
}

/** Made once: a BigInt is a heap object, and every pod's declared requests pass here. */
const MAX_SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE_BIGINT = BigInt(Number.MIN_SAFE_INTEGER);

function toSafeNumber(
  value: bigint,
  input: string | number,
  unit: string,
): number {
  if (value > MAX_SAFE_BIGINT || value < MIN_SAFE_BIGINT) {
    throw new QuantityError(
      `quantity "${input}" is ${value} ${unit}, beyond the safe integer range of a JavaScript number`,
      String(input),
    );
  }
  return Number(value);
}
