import type { AggregationConfig } from '@tandem/estimators';
import {
  numberParameter,
  type ParameterSpec,
  type ParameterValues,
} from './parameters.js';

const HOUR_MS = 3_600_000;

/** The safety margin every strategy adds on top of its statistic, upstream's 15 % by default. */
export const MARGIN_PARAMETER: ParameterSpec = {
  kind: 'number',
  fallback: 0.15,
  min: 0,
  max: 10,
  summary: 'fraction added on top of the estimate (0.15 = 15 %)',
};

export function percentileParameter(
  fallback: number,
  what: string,
): ParameterSpec {
  return {
    kind: 'number',
    fallback,
    min: 0,
    max: 1,
    summary: `percentile of the ${what} (0.9 = p90)`,
  };
}

export function halfLifeParameter(
  fallbackHours: number,
  what: string,
): ParameterSpec {
  return {
    kind: 'duration',
    fallback: fallbackHours * HOUR_MS,
    min: 60_000,
    max: 365 * 24 * HOUR_MS,
    summary: `half-life of the ${what}'s decay`,
  };
}

/** Upstream's OOM bump-up (`--oom-bump-up-ratio`, `--oom-min-bump-up-bytes`), per VPA. */
export const OOM_PARAMETERS = {
  'oom-bump-up-ratio': {
    kind: 'number',
    fallback: 1.2,
    min: 1,
    max: 100,
    summary:
      'after an OOM kill, memory is at least this multiple of what was used',
  },
  'oom-min-bump-up': {
    kind: 'memory',
    fallback: 100 * 1024 * 1024,
    min: 0,
    max: 2 ** 40,
    summary: '...and at least this much more',
  },
} as const satisfies Record<string, ParameterSpec>;

export type OomSettings = Pick<
  AggregationConfig,
  'oomBumpUpRatio' | 'oomMinBumpUpBytes'
>;

export function oomSettings(values: ParameterValues): OomSettings {
  return {
    oomBumpUpRatio: numberParameter(values, 'oom-bump-up-ratio'),
    oomMinBumpUpBytes: numberParameter(values, 'oom-min-bump-up'),
  };
}
