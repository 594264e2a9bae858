import { replayFleet, type ApplyMode, type Fleet } from '@tandem/replay';
import {
  configureStrategy,
  parameterText,
  strategyDefinition,
  type Strategy,
} from '@tandem/strategies';

/** The margins each strategy is replayed with: from none to twice upstream's 15 %. */
export const SWEPT_MARGINS = [0, 0.05, 0.1, 0.15, 0.2, 0.3] as const;

export interface SweepPoint {
  /** Undefined for a strategy without a margin, which is one point. */
  readonly margin: number | undefined;
  readonly oomKills: number;
  readonly cpuSlack: number;
  readonly memorySlack: number;
}

export interface SweepCurve {
  readonly strategy: Strategy;
  /** One per swept margin, in order, or one for a strategy without a margin. */
  readonly points: readonly SweepPoint[];
  /** The margin the strategy's definition falls back to, to mark on the curve. */
  readonly defaultMargin: number | undefined;
}

/**
 * Every strategy replayed over the fleet under `mode` at each swept margin, keeping its
 * other parameters; a strategy without a margin (the static baseline) is replayed once.
 */
export function marginSweep(
  fleet: Fleet,
  strategies: readonly Strategy[],
  mode: ApplyMode,
): SweepCurve[] {
  return strategies.map((strategy) => {
    const found =
      'margin' in strategy.parameters
        ? strategyDefinition(strategy.name)
        : undefined;
    // Only a registered strategy can be configured anew; any other is one point.
    if (found === undefined || 'error' in found)
      return {
        strategy,
        points: [sweepPoint(fleet, strategy, mode, undefined)],
        defaultMargin: undefined,
      };
    const { definition } = found;
    const texts: Record<string, string> = {};
    for (const [name, value] of Object.entries(strategy.parameters)) {
      const spec = definition.parameters[name];
      if (spec !== undefined) texts[name] = parameterText(spec, value);
    }
    const points = SWEPT_MARGINS.map((margin) => {
      const configured = configureStrategy(definition, {
        ...texts,
        margin: String(margin),
      });
      if ('error' in configured) throw new Error(configured.error);
      return sweepPoint(fleet, configured.strategy, mode, margin);
    });
    const fallback = definition.parameters['margin']?.fallback;
    return {
      strategy,
      points,
      defaultMargin: typeof fallback === 'number' ? fallback : undefined,
    };
  });
}

function sweepPoint(
  fleet: Fleet,
  strategy: Strategy,
  mode: ApplyMode,
  margin: number | undefined,
): SweepPoint {
  const report = replayFleet(fleet, strategy, mode);
  return {
    margin,
    oomKills: report.totals.oomEvents,
    cpuSlack: report.relative.cpuSlack,
    memorySlack: report.relative.memorySlack,
  };
}

/**
 * The strategy's name with the parameters it was given away from their defaults, so two
 * variants of one strategy tell apart.
 */
export function strategyLabel(strategy: Strategy): string {
  const found = strategyDefinition(strategy.name);
  if ('error' in found) return strategy.name;
  const changed = Object.entries(strategy.parameters).flatMap(
    ([name, value]) => {
      const spec = found.definition.parameters[name];
      return spec === undefined || spec.fallback === value
        ? []
        : [`${name}=${parameterText(spec, value)}`];
    },
  );
  return changed.length === 0
    ? strategy.name
    : `${strategy.name} (${changed.join(', ')})`;
}
