import {
  readParameters,
  type ParameterSpecs,
  type ParameterValues,
} from './parameters.js';
import type { Strategy } from './strategy.js';

/** A strategy before its parameters are set: what `tandem.dev/strategy` names. */
export interface StrategyDefinition {
  readonly name: string;
  /** One line for `tandem replay --list-strategies` and the docs. */
  readonly summary: string;
  readonly parameters: ParameterSpecs;
  create(values: ParameterValues): Strategy;
}

/**
 * The strategy `definition` makes with the parameters written as text (annotation values,
 * command-line values), or a precise error. Never throws.
 */
export function configureStrategy(
  definition: StrategyDefinition,
  texts: Readonly<Record<string, string>> = {},
): { strategy: Strategy } | { error: string } {
  const read = readParameters(definition.name, definition.parameters, texts);
  if ('error' in read) return read;
  return { strategy: definition.create(read.values) };
}
