import { configureStrategy, type StrategyDefinition } from './definition.js';
import type { UsageModel } from './strategy.js';

/** The start of every test series. */
export const T0 = Date.parse('2024-01-01T00:00:00Z');

/** A model of `definition` with these parameter texts, starting at T0. */
export function model(
  definition: StrategyDefinition,
  texts: Record<string, string> = {},
): UsageModel {
  const configured = configureStrategy(definition, texts);
  if ('error' in configured) throw new Error(configured.error);
  return configured.strategy.model(T0);
}
