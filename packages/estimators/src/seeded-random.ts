/**
 * A deterministic source of numbers in [0, 1) for synthetic usage (`tandem synth`, the
 * benchmarks): the same seed gives the same sequence on every machine, so a trace or a
 * figure differs only by the code. mulberry32: small, fast, and good enough to spread
 * samples over a histogram's buckets; not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
