/**
 * Floating-point kernels that return, bit for bit, what the upstream recommender gets from
 * Go's `math` package on amd64 (the platform its release images are mostly run on).
 *
 * Why not `Math.log` / `Math.pow`? V8 rounds differently from Go in the last bit for a
 * fraction of inputs (measured: `Math.log` differs from Go's `math.Log` on ~0.07 % of
 * random inputs, `Math.pow(1.05, n)` from `math.Pow` for more than half of n in 0..199,
 * `Math.pow(2, x)` from `math.Exp2` on ~20 % of fractional x). One ulp is enough to move a
 * sample sitting on a bucket edge into the neighbouring bucket, or to tip a rounded checkpoint
 * weight, and the project promises the same numbers as upstream. The algorithms below are the
 * classic fdlibm ones, in the exact operation order Go evaluates them, so every intermediate
 * rounding is the same.
 */

// Two-part ln(2): the high part has trailing zero bits, so k * LN2_HI is exact for |k| < 2^20.
const LN2_HI = 6.9314718036912381649e-1;
const LN2_LO = 1.90821492927058770002e-10;

// Minimax coefficients of the fdlibm logarithm (R(z) ~ log((1+s)/(1-s)) - 2s).
const LOG_C1 = 6.66666666666673513e-1;
const LOG_C2 = 3.999999999940941908e-1;
const LOG_C3 = 2.857142874366239149e-1;
const LOG_C4 = 2.222219843214978396e-1;
const LOG_C5 = 1.818357216161805012e-1;
const LOG_C6 = 1.531383769920937332e-1;
const LOG_C7 = 1.479819860511658591e-1;

// Remez coefficients of the fdlibm exponential on [-ln2/2, ln2/2].
const EXP_P1 = 1.66666666666666657415e-1;
const EXP_P2 = -2.77777777770155933842e-3;
const EXP_P3 = 6.61375632143793436117e-5;
const EXP_P4 = -1.6533902205465251539e-6;
const EXP_P5 = 4.13813679705723846039e-8;

/** Go's `math.Exp2` returns +Inf above this and 0 below EXP2_UNDERFLOW. */
const EXP2_OVERFLOW = 1.0239999999999999e3;
const EXP2_UNDERFLOW = -1.074e3;

// A scratch double viewed as two 32-bit words, to read and set the binary exponent exactly.
const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * 2^k for every k a double can hold (-1074..1023), exact. A table lookup is an order of
 * magnitude faster than `2 ** k`, which V8 does not inline for a variable exponent, and
 * exp2LikeGo sits on the hot path of every decaying-histogram sample.
 */
const MIN_POWER = -1074;
const MAX_POWER = 1023;
const POWERS_OF_TWO = Float64Array.from(
  { length: MAX_POWER - MIN_POWER + 1 },
  (_, index) => 2 ** (index + MIN_POWER),
);
const SMALLEST_NORMAL = 2 ** -1022;

/** Natural logarithm, identical to Go's `math.Log`. */
export function logLikeGo(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x < 0) return Number.NaN;
  if (x === 0) return -Infinity;

  // Split x = f1 * 2^k with f1 in [sqrt(2)/2, sqrt(2)), so that f = f1 - 1 is small.
  scratch[0] = x;
  let k = (((scratchWords[HIGH_WORD] ?? 0) >>> 20) & 0x7ff) - 1022;
  let f1 = x < SMALLEST_NORMAL ? subnormalFraction() : x * powerOfTwo(-k);
  if (f1 < Math.SQRT1_2) {
    f1 *= 2;
    k -= 1;
  }
  const f = f1 - 1;

  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const oddTerms = s2 * (LOG_C1 + s4 * (LOG_C3 + s4 * (LOG_C5 + s4 * LOG_C7)));
  const evenTerms = s4 * (LOG_C2 + s4 * (LOG_C4 + s4 * LOG_C6));
  const r = oddTerms + evenTerms;
  const halfSquare = 0.5 * f * f;
  return k * LN2_HI - (halfSquare - (s * (halfSquare + r) + k * LN2_LO) - f);
}

/** 2^x, identical to Go's `math.Exp2` (pure-Go on amd64). */
export function exp2LikeGo(x: number): number {
  // One range check, its three outcomes outlined: this body is inlined into every
  // decaying-histogram sample only while it fits V8's inlining budget, and when it is not,
  // the call boxes its argument and result (two heap numbers per sample).
  if (!(x >= EXP2_UNDERFLOW && x <= EXP2_OVERFLOW)) return exp2OutOfRange(x);

  // x = k + t with integer k and |t| <= 1/2, then 2^t = e^(t ln2) computed as e^(hi - lo).
  // Go rounds half away from zero; for x = 0 this gives k = -0, which changes nothing below.
  const k = Math.trunc(x > 0 ? x + 0.5 : x - 0.5);
  const t = x - k;
  const hi = t * LN2_HI;
  const lo = -t * LN2_LO;

  const r = hi - lo;
  const r2 = r * r;
  const c =
    r -
    r2 * (EXP_P1 + r2 * (EXP_P2 + r2 * (EXP_P3 + r2 * (EXP_P4 + r2 * EXP_P5))));
  const y = 1 - (lo - (r * c) / (2 - c) - hi);
  return timesPowerOfTwo(y, k);
}

/** Go's `math.Exp2` outside [EXP2_UNDERFLOW, EXP2_OVERFLOW]: NaN, +Inf or 0. */
function exp2OutOfRange(x: number): number {
  if (Number.isNaN(x)) return x;
  return x > 0 ? Infinity : 0;
}

/**
 * base^exponent for an integer exponent, identical to Go's `math.Pow` on that path: Go
 * multiplies successive squarings of the base (right-to-left binary exponentiation) and
 * takes the reciprocal last for negative exponents, so we do the same, in the same order.
 * Go carries the binary exponent separately, so results below the normal range (< 2^-1022,
 * never met by the histograms or estimators) may differ there.
 */
export function integerPowerLikeGo(base: number, exponent: number): number {
  if (!Number.isInteger(exponent)) {
    throw new RangeError(
      `integerPowerLikeGo: exponent must be an integer, got ${exponent}`,
    );
  }
  let result = 1;
  let square = base;
  for (let bits = Math.abs(exponent); bits > 0; bits = Math.floor(bits / 2)) {
    if (bits % 2 === 1) result *= square;
    square *= square;
  }
  return exponent < 0 ? 1 / result : result;
}

/** y * 2^k with a single rounding, like Go's `math.Ldexp`, for |y| in [0.5, 2). */
function timesPowerOfTwo(y: number, k: number): number {
  // 2^1024 is not a double; split it so the product still rounds only once.
  return k > MAX_POWER ? y * powerOfTwo(k - 1) * 2 : y * powerOfTwo(k);
}

/** 2^k for an integer k in MIN_POWER..MAX_POWER. */
function powerOfTwo(k: number): number {
  return POWERS_OF_TWO[k - MIN_POWER] ?? Number.NaN;
}

/**
 * The fraction Go's amd64 assembly takes for the subnormal now in `scratch`: it does not
 * normalise, so the fraction is 0.5 with the raw mantissa bits (and k is -1022).
 */
function subnormalFraction(): number {
  scratchWords[HIGH_WORD] =
    ((scratchWords[HIGH_WORD] ?? 0) & 0x800fffff) | (1022 << 20);
  return scratch[0] ?? Number.NaN;
}
