import {
  parseQuantity,
  QuantityError,
  type ContainerResourcePolicy,
} from '@tandem/vpa-api';
import { configureStrategy } from './definition.js';
import { parameterText, type ParameterValues } from './parameters.js';
import { strategyDefinition } from './registry.js';
import type { ParameterValue, Strategy } from './strategy.js';

/** The VPA annotation naming the strategy; its parameters are `tandem.dev/<parameter>`. */
export const STRATEGY_ANNOTATION = 'tandem.dev/strategy';

/** Every annotation of Tandem's on a VPA starts with it: the strategy and its parameters. */
export const TANDEM_PREFIX = 'tandem.dev/';

/**
 * The strategy a VPA names, configured from its annotations, or a precise error naming the
 * annotation at fault. Every `tandem.dev/` annotation of a VPA must be the strategy or one
 * of its parameters (no other Tandem annotation lives on VPAs: the others are on pods,
 * Secrets and namespaces), so a misspelt parameter is refused instead of silently ignored.
 * A parameter needs an explicit `tandem.dev/strategy`: without one its meaning would change
 * with the recommender's `--default-strategy`, which the webhook cannot see. `fallbacks`
 * replace the definition's own fallbacks for the parameters it has: the recommender's
 * upstream flags (`--target-cpu-percentile`, `--recommendation-margin-fraction`, ...) stay
 * in force for every VPA that does not annotate them, except for parameters whose
 * strategy keeps its own number (`ownFallback`: tandem's percentiles and margin). Never
 * throws.
 */
export function vpaStrategy(
  annotations: Readonly<Record<string, string>> | undefined,
  defaultName: string,
  fallbacks: Readonly<Record<string, ParameterValue>> = {},
): { strategy: Strategy } | StrategyAnnotationError {
  const named = annotations?.[STRATEGY_ANNOTATION];
  const texts: Record<string, string> = {};
  for (const [key, text] of Object.entries(annotations ?? {}))
    if (key.startsWith(TANDEM_PREFIX) && key !== STRATEGY_ANNOTATION)
      texts[key.slice(TANDEM_PREFIX.length)] = text;
  const parameterNames = Object.keys(texts);
  const [first] = parameterNames;
  if (named === undefined && first !== undefined)
    return annotationError(
      TANDEM_PREFIX + first,
      `a parameter needs ${STRATEGY_ANNOTATION} naming the strategy it belongs to`,
    );
  const found = strategyDefinition(named ?? defaultName);
  if ('error' in found)
    return annotationError(STRATEGY_ANNOTATION, found.error);
  // One parameter at a time, so the error names the annotation that holds the bad value.
  for (const name of parameterNames.sort()) {
    const one = configureStrategy(found.definition, {
      [name]: texts[name] ?? '',
    });
    if ('error' in one) return annotationError(TANDEM_PREFIX + name, one.error);
  }
  const { parameters } = found.definition;
  const withFallbacks: Record<string, string> = {};
  for (const [name, value] of Object.entries(fallbacks)) {
    const spec = parameters[name];
    if (spec !== undefined && spec.ownFallback !== true)
      withFallbacks[name] = parameterText(spec, value);
  }
  const configured = configureStrategy(found.definition, {
    ...withFallbacks,
    ...texts,
  });
  return 'error' in configured
    ? {
        error: `recommender flags: ${configured.error}`,
        field: undefined,
        reason: configured.error,
      }
    : configured;
}

/**
 * Why a VPA's strategy annotations do not read: `error` whole, for logs and events, and
 * its parts for an API error's cause: the annotation's path (undefined when the
 * recommender's own flags are at fault) and what is wrong with it.
 */
export interface StrategyAnnotationError {
  readonly error: string;
  readonly field: string | undefined;
  readonly reason: string;
}

function annotationError(key: string, reason: string): StrategyAnnotationError {
  const field = `metadata.annotations[${key}]`;
  return { error: `${field}: ${reason}`, field, reason };
}

/** Upstream's per-container fields and the strategy parameters they stand for. */
const UPSTREAM_FIELDS = [
  ['oomBumpUpRatio', 'oom-bump-up-ratio', (q) => q.milliValue(), 1000],
  ['oomMinBumpUp', 'oom-min-bump-up', (q) => q.value(), 1],
] as const satisfies readonly (readonly [
  keyof ContainerResourcePolicy,
  string,
  (quantity: ReturnType<typeof parseQuantity>) => bigint,
  number,
])[];

/**
 * The strategy for one container: where the container's policy sets one of upstream's
 * `PerVPAConfig` fields (`oomBumpUpRatio`, `oomMinBumpUp`), it wins over the annotation for
 * that container, as upstream's per-container value wins over its global flag (AEP-8026,
 * "Parameter Precedence"). Only with `perVpaConfig` (the feature gate), and only for a
 * strategy that has the parameter; a field that does not parse is left out (the webhook's
 * validation refuses it on the way in).
 */
export function containerStrategy(
  strategy: Strategy,
  policy: ContainerResourcePolicy | undefined,
  perVpaConfig: boolean,
): Strategy {
  if (!perVpaConfig || policy === undefined) return strategy;
  const found = strategyDefinition(strategy.name);
  if ('error' in found) return strategy;
  const overrides: Record<string, number> = {};
  for (const [field, parameter, read, unit] of UPSTREAM_FIELDS) {
    const text = policy[field];
    if (typeof text !== 'string' || !(parameter in strategy.parameters))
      continue;
    const value = quantityValue(text, read, unit);
    if (value !== undefined) overrides[parameter] = value;
  }
  if (Object.keys(overrides).length === 0) return strategy;
  const values: ParameterValues = { ...strategy.parameters, ...overrides };
  return found.definition.create(values);
}

function quantityValue(
  text: string,
  read: (quantity: ReturnType<typeof parseQuantity>) => bigint,
  unit: number,
): number | undefined {
  try {
    return Number(read(parseQuantity(text))) / unit;
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    return undefined;
  }
}
