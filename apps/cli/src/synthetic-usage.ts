import { seededRandom } from '@tandem/estimators';
import { USAGE_CSV_HEADER } from './usage-csv.js';

/** What `tandem synth` makes: how many series, over how long, sampled how often. */
export interface SyntheticUsageOptions {
  /** Same seed, same bytes: the trace depends on nothing else. */
  readonly seed: number;
  readonly series: number;
  readonly days: number;
  readonly intervalSeconds: number;
}

/**
 * The shapes a fleet's containers take, one series each in turn, so any count holds a
 * mix (the names say which):
 * - `web`: CPU on a daily cycle peaking mid-afternoon, lower at weekends; steady memory;
 * - `batch`: idle, with bursts of CPU and memory that start at random and last 10–40 min;
 * - `leak`: steady CPU; memory growing 4 % a day, back to its start on a weekly restart;
 * - `step`: steady, until memory steps up 1.8× at 60 % of the trace (a new release): a
 *   request sized on the history before it, as upstream's defaults size it, is OOM-killed;
 * - `idle`: a few millicores and little memory, where a declared size is all slack.
 */
const SHAPES = ['web', 'batch', 'leak', 'step', 'idle'] as const;
type Shape = (typeof SHAPES)[number];

/** 2026-01-01T00:00:00Z, a Thursday: every trace starts there. */
const START_S = 1_767_225_600;
const DAY_S = 86_400;
const MIB = 2 ** 20;

/** One series: its name and the usage it has at each moment. */
interface SeriesModel {
  readonly id: string;
  sample(timeS: number): { cpuCores: number; memoryBytes: number };
}

function seriesModel(
  index: number,
  options: SyntheticUsageOptions,
): SeriesModel {
  const shape: Shape = SHAPES[index % SHAPES.length] ?? 'web';
  // Each series draws from its own stream, so adding series never changes earlier ones.
  const random = seededRandom(options.seed * 1_000_003 + index);
  const noise = (spread: number) => 1 + spread * (2 * random() - 1);
  // Sizes spread over two orders of magnitude, as on a real cluster.
  const cpuCores = 0.05 * Math.pow(40, random());
  const memoryBytes = 128 * MIB * Math.pow(32, random());
  const stepAtS = START_S + 0.6 * options.days * DAY_S;
  let burstEndS = -1;
  const id = `${shape}-${String(index).padStart(3, '0')}`;
  const sample = (timeS: number) => {
    const dayS = (timeS - START_S) % DAY_S;
    const day = Math.floor((timeS - START_S) / DAY_S);
    // Thursday first: days 2 and 3 of each week are Saturday and Sunday.
    const weekend = day % 7 === 2 || day % 7 === 3;
    switch (shape) {
      case 'web': {
        const daily =
          0.5 - 0.5 * Math.cos((2 * Math.PI * (dayS - 2 * 3600)) / DAY_S);
        return {
          cpuCores:
            cpuCores * (0.15 + 0.85 * daily) * (weekend ? 0.6 : 1) * noise(0.2),
          memoryBytes: memoryBytes * (0.9 + 0.1 * daily) * noise(0.03),
        };
      }
      case 'batch': {
        if (timeS >= burstEndS && random() < options.intervalSeconds / 3600 / 4)
          burstEndS = timeS + 600 + 1800 * random();
        const busy = timeS < burstEndS;
        return {
          cpuCores: cpuCores * (busy ? 1 + 0.5 * random() : 0.05 * noise(0.5)),
          memoryBytes: memoryBytes * (busy ? noise(0.1) : 0.4 * noise(0.05)),
        };
      }
      case 'leak':
        return {
          cpuCores: cpuCores * 0.5 * noise(0.2),
          memoryBytes: memoryBytes * 0.5 * (1 + 0.04 * (day % 7)) * noise(0.02),
        };
      case 'step':
        return {
          cpuCores: cpuCores * 0.4 * noise(0.2),
          memoryBytes:
            memoryBytes * 0.4 * (timeS >= stepAtS ? 1.8 : 1) * noise(0.02),
        };
      case 'idle':
        return {
          cpuCores: (0.002 + 0.008 * random()) * noise(0.3),
          memoryBytes: 24 * MIB * noise(0.05),
        };
    }
  };
  return { id, sample };
}

/**
 * A usage CSV (`USAGE_CSV_HEADER`), deterministic from `options.seed`: every series
 * sampled every `intervalSeconds` for `days`, rows in time order, CPU in whole
 * millicores (at least 1m), memory in whole bytes. Yields the text in chunks of rows, so a
 * caller can write a trace of millions of rows without holding it.
 */
export function* syntheticUsage(
  options: SyntheticUsageOptions,
): Generator<string> {
  const models = Array.from({ length: options.series }, (_, index) =>
    seriesModel(index, options),
  );
  yield `${USAGE_CSV_HEADER}\n`;
  const endS = START_S + options.days * DAY_S;
  let chunk: string[] = [];
  for (let timeS = START_S; timeS < endS; timeS += options.intervalSeconds) {
    for (const model of models) {
      const { cpuCores, memoryBytes } = model.sample(timeS);
      const millicores = Math.max(1, Math.round(cpuCores * 1000));
      chunk.push(
        `${timeS},${model.id},${(millicores / 1000).toFixed(3)},${Math.round(memoryBytes)}\n`,
      );
    }
    if (chunk.length >= 4096) {
      yield chunk.join('');
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk.join('');
}
