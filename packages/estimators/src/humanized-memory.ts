/** Binary units, largest first, as upstream's deprecated `--humanize-memory` picks them. */
const UNITS = [
  ['Ti', 40n],
  ['Gi', 30n],
  ['Mi', 20n],
  ['Ki', 10n],
] as const;

/**
 * Memory the way upstream's deprecated `--humanize-memory` writes it before parsing it back
 * into a quantity: two decimals in the largest unit of at least 1 among Ki, Mi, Gi and Ti
 * (262144000 → `250.00Mi`, 1537 → `1.50Ki`), plain digits below 1 KiB.
 */
export function humanizedMemoryText(bytes: number | bigint): string {
  const value = BigInt(bytes);
  for (const [suffix, shift] of UNITS) {
    const unit = 1n << shift;
    if (value >= unit) return `${fixedTwoDecimalsLikeGo(value, unit)}${suffix}`;
  }
  return value.toString();
}

/**
 * Go's `fmt.Sprintf("%.2f", float64(value)/float64(unit))` for a power-of-two unit: the
 * int64 → float64 conversion rounds to the nearest double (so does Number(bigint)), dividing
 * by a power of two is exact, and %.2f rounds that exact value to hundredths, ties to even.
 * (`toFixed` would round ties up: 1.125 → "1.13" where Go writes "1.12".)
 */
function fixedTwoDecimalsLikeGo(value: bigint, unit: bigint): string {
  const scaled = BigInt(Number(value)) * 100n;
  let hundredths = scaled / unit;
  const twiceRemainder = (scaled % unit) * 2n;
  if (
    twiceRemainder > unit ||
    (twiceRemainder === unit && hundredths % 2n === 1n)
  ) {
    hundredths += 1n;
  }
  const fraction = (hundredths % 100n).toString().padStart(2, '0');
  return `${hundredths / 100n}.${fraction}`;
}
