/**
 * Resource amounts as upstream's `ResourceAmount` (an int64): CPU in millicores, memory in
 * bytes, always whole numbers between 0 and MAX_RESOURCE_AMOUNT.
 */

export type ResourceName = 'cpu' | 'memory';

/** CPU in millicores and memory in bytes. */
export interface ResourceAmounts {
  readonly cpu: number;
  readonly memory: number;
}

/** Upstream's cap on any computed amount: 1e14 (100G cores in millicores, ~91 TiB in bytes). */
export const MAX_RESOURCE_AMOUNT = 1e14;

/**
 * A computed float as a resource amount, the way upstream converts: negative → 0, above the
 * cap → the cap, otherwise truncated toward zero. NaN (0 × ∞ in the confidence multiplier)
 * becomes 0: Go's conversion of NaN is platform-defined, and on every platform the per-pod
 * minimum applied afterwards hides the difference.
 */
export function toResourceAmount(value: number): number {
  if (!(value >= 0)) return 0;
  if (value > MAX_RESOURCE_AMOUNT) return MAX_RESOURCE_AMOUNT;
  return Math.trunc(value);
}

/** `amount * factor` as a resource amount (upstream's ScaleResource). */
export function scaleResourceAmount(amount: number, factor: number): number {
  return toResourceAmount(amount * factor);
}

/** Cores (a float, as the CPU histogram holds them) to millicores. */
export function cpuAmountFromCores(cores: number): number {
  return toResourceAmount(cores * 1000);
}

/** Millicores to cores, the unit of the CPU histogram. */
export function coresFromCpuAmount(millicores: number): number {
  return millicores / 1000;
}
