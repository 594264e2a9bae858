import type { StrategyRecommendation } from './strategy.js';

/**
 * The recommendation to give when `held` was given last and the model now says `fresh`:
 * per resource, `held`'s target and bounds while `fresh`'s target stays within `band` of
 * `held`'s, else `fresh`'s. A memory target that rises is never held: memory past the
 * request is killed, CPU past it is only slowed. Band 0 gives `fresh` unchanged.
 *
 * Every change of a recommendation the updater applies costs a restart (or a resize), and
 * a decaying percentile drifts by a few percent a day on its own; holding still through the
 * drift leaves the updater's budget for the changes that matter. Upstream has no such rule:
 * its updater's `--pod-update-threshold` (`pkg/updater/priority/update_priority_calculator.go`)
 * compares the request with the newest target every time, so drift that adds up crosses it.
 */
export function holdWithinBand(
  held: StrategyRecommendation | undefined,
  fresh: StrategyRecommendation,
  band: number,
): StrategyRecommendation {
  if (held === undefined || band === 0) return fresh;
  const holds = (resource: 'cpu' | 'memory') => {
    const from = held.target[resource];
    const to = fresh.target[resource];
    if (resource === 'memory' && to > from) return false;
    return Math.abs(to - from) <= band * from;
  };
  const cpu = holds('cpu') ? held : fresh;
  const memory = holds('memory') ? held : fresh;
  if (cpu === memory) return cpu;
  return {
    target: { cpu: cpu.target.cpu, memory: memory.target.memory },
    lowerBound: { cpu: cpu.lowerBound.cpu, memory: memory.lowerBound.memory },
    upperBound: { cpu: cpu.upperBound.cpu, memory: memory.upperBound.memory },
  };
}
