import {
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  MEMORY_HISTOGRAM_OPTIONS,
} from '@tandem/histogram';
import { medianMs } from './measure.js';
import type { Figure } from './report.js';
import { seededRandom } from '@tandem/estimators';

const DAY_MS = 24 * 3600 * 1000;
const SAMPLES_PER_RUN = 100_000;

/** Ingest, percentile and checkpoint rates of one CPU decaying histogram. */
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
  const ingestMs = await medianMs('add samples', () => {
    for (let i = 0; i < SAMPLES_PER_RUN; i += 1)
      ingest.addSample(values[i] ?? 0, 0.1, times[i] ?? 0);
  });

  const percentiles = [0.5, 0.9, 0.95];
  const queryMs = await medianMs('percentiles', () => {
    for (const p of percentiles) ingest.percentile(p);
  });

  const memory = new DecayingHistogram(MEMORY_HISTOGRAM_OPTIONS, DAY_MS);
  for (let day = 0; day < 8; day += 1)
    memory.addSample(5e8 * (1 + 0.1 * random()), 1, t0 + day * DAY_MS);
  const checkpoint = ingest.saveCheckpoint();
  const encodeMs = await medianMs('checkpoint encode', () => {
    ingest.saveCheckpoint();
    memory.saveCheckpoint();
  });
  const memoryCheckpoint = memory.saveCheckpoint();
  const decodeMs = await medianMs('checkpoint decode', () => {
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
    perSecond('percentile queries', percentiles.length, queryMs, 'queries/s'),
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

function perSecond(
  name: string,
  operations: number,
  medianRunMs: number,
  unit: string,
  target?: number,
): Figure {
  return {
    name,
    value: (operations / medianRunMs) * 1000,
    unit,
    target:
      target === undefined ? undefined : { comparison: '>=', value: target },
  };
}
