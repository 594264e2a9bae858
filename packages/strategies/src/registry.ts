import { autopilot } from './autopilot.js';
import type { StrategyDefinition } from './definition.js';
import { tandem } from './tandem.js';
import { upstream } from './upstream.js';
import { vivo } from './vivo.js';

/** Every strategy a VPA may name, in the order `--list-strategies` prints them. */
export const STRATEGIES: readonly StrategyDefinition[] = [
  upstream,
  autopilot,
  vivo,
  tandem,
];

/** What a VPA without `tandem.dev/strategy` gets, unless the recommender's flag says otherwise. */
export const DEFAULT_STRATEGY = 'upstream';

/** The strategy of that name, or an error naming the ones that exist. */
export function strategyDefinition(
  name: string,
): { definition: StrategyDefinition } | { error: string } {
  const definition = STRATEGIES.find((candidate) => candidate.name === name);
  if (definition !== undefined) return { definition };
  return {
    error: `unknown strategy '${name}': choose one of ${STRATEGIES.map((s) => s.name).join(', ')}`,
  };
}
