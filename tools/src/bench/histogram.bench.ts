import {
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  MEMORY_HISTOGRAM_OPTIONS,
} from '@tandem/histogram';
import { tinybenchRuns } from './measure.js';
import { mapMeasured, type Figure, type Measured } from './report.js';
import { seededRandom } from '@tandem/estimators';

const DAY_MS = 24 * 3600 * 1000;
const SAMPLES_PER_RUN = 100_000;
/**
 * Each figure is the median of this many tinybench runs of RUN_MS (the one second a
 * single run had before, split), with their spread.
 */
const RUNS = 5;
const RUN_MS = 200;
/**
 * Rounds of the three percentile queries per timed call: one round takes tens of
 * nanoseconds (a bisection over sums kept between queries), which is the timer's
 * resolution, so a single round's median was the clock's, not the code's.
 */
const QUERY_ROUNDS = 1000;

/** Ingest, percentile and checkpoint rates of one CPU decaying histogram, each the median of RUNS runs. */
export async function histogramFigures(): Promise<Figure[]> {
  const random = seededRandom(1);
  // A week of per-second timestamps and CPU values spread over ~3 decades of buckets.
  const t0 = Date.UTC(2026, 0, 1);
  const values = Float64Array.from(
    { length: SAMPLES_PER_RUN },
    () => 0.005 * Math.pow(1000, random()),
  );
  const times = Float64Array.from(
    { length: SAMPLES_PER_RUN },
    (_, i) => t0 + (i * 7 * DAY_MS) / SAMPLES_PER_RUN,
  );

  const ingest = new DecayingHistogram(CPU_HISTOGRAM_OPTIONS, DAY_MS);
  const ingestMs = await timed('add samples', () => {
    for (let i = 0; i < SAMPLES_PER_RUN; i += 1)
      ingest.addSample(values[i] ?? 0, 0.1, times[i] ?? 0);
  });

  const percentiles = [0.5, 0.9, 0.95];
  // Summed and checked, so the compiler cannot drop queries whose answers go unused.
  let answers = 0;
  const queryMs = await timed('percentiles', () => {
    for (let round = 0; round < QUERY_ROUNDS; round += 1)
      for (const p of percentiles) answers += ingest.percentile(p);
  });
  if (!(answers > 0)) throw new Error('the percentile queries answered 0');

  const memory = new DecayingHistogram(MEMORY_HISTOGRAM_OPTIONS, DAY_MS);
  for (let day = 0; day < 8; day += 1)
    memory.addSample(5e8 * (1 + 0.1 * random()), 1, t0 + day * DAY_MS);
  const checkpoint = ingest.saveCheckpoint();
  const encodeMs = await timed('checkpoint encode', () => {
    ingest.saveCheckpoint();
    memory.saveCheckpoint();
  });
  const memoryCheckpoint = memory.saveCheckpoint();
  const decodeMs = await timed('checkpoint decode', () => {
    new DecayingHistogram(CPU_HISTOGRAM_OPTIONS, DAY_MS).loadCheckpoint(
      checkpoint,
    );
    new DecayingHistogram(MEMORY_HISTOGRAM_OPTIONS, DAY_MS).loadCheckpoint(
      memoryCheckpoint,
    );
  });

  return [
    perSecond(
      'CPU decaying histogram: samples added',
      SAMPLES_PER_RUN,
      ingestMs,
      'samples/s',
      10e6,
    ),
    perSecond(
      'percentile queries',
      QUERY_ROUNDS * percentiles.length,
      queryMs,
      'queries/s',
    ),
    perSecond(
      'checkpoint encode (CPU + memory histogram)',
      1,
      encodeMs,
      'states/s',
    ),
    perSecond(
      'checkpoint decode (CPU + memory histogram)',
      1,
      decodeMs,
      'states/s',
    ),
  ];
}

function timed(name: string, fn: () => void): Promise<Measured> {
  return tinybenchRuns(name, fn, RUNS, RUN_MS);
}

function perSecond(
  name: string,
  operations: number,
  runMs: Measured,
  unit: string,
  target?: number,
): Figure {
  return {
    name,
    ...mapMeasured(runMs, (ms) => (operations / ms) * 1000),
    unit,
    target:
      target === undefined ? undefined : { comparison: '>=', value: target },
  };
}
