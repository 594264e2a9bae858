import {
  AggregateContainerState,
  ContainerState,
  recommendPod,
} from '@tandem/estimators';
import { medianOfRuns, retainedHeapBytes } from './measure.js';
import type { Figure } from './report.js';
import {
  containerProfiles,
  seededRandom,
  usageAround,
} from './synthetic-usage.js';

const STATES = 50_000;
const SAMPLE_INTERVAL_MS = 5 * 60 * 1000;
const SAMPLES_PER_STATE = 288; // one day at one sample every five minutes

/**
 * 50,000 aggregate container states, each fed a day of realistic usage (what a
 * recommender holds for a large cluster), then: heap per state, and the time to compute
 * target, lower and upper bounds for CPU and memory of all of them.
 */
export async function recommendationFigures(): Promise<Figure[]> {
  const random = seededRandom(2);
  const profiles = containerProfiles(STATES, random);
  const t0 = Date.UTC(2026, 0, 1);
  const { bytes, value: aggregates } = retainedHeapBytes(() =>
    profiles.map((profile) => {
      const aggregate = new AggregateContainerState(t0);
      const container = new ContainerState(aggregate);
      for (let i = 0; i < SAMPLES_PER_STATE; i += 1) {
        const timeMs = t0 + i * SAMPLE_INTERVAL_MS;
        const usage = usageAround(profile, random);
        container.addSample({
          timeMs,
          resource: 'cpu',
          usage: usage.cpuMillicores,
        });
        container.addSample({
          timeMs,
          resource: 'memory',
          usage: usage.memoryBytes,
        });
      }
      return aggregate;
    }),
  );
  // Each state is its own single-container pod, as in `tandem recommend`.
  const pods = aggregates.map((aggregate) => new Map([['app', aggregate]]));
  const recommendMs = await medianOfRuns(5, async () => {
    const start = performance.now();
    for (const pod of pods) recommendPod(pod);
    return performance.now() - start;
  });
  return [
    {
      name: `recommendation of ${STATES.toLocaleString('en-US')} aggregate states`,
      value: recommendMs,
      unit: 'ms',
      target: { comparison: '<=', value: 200 },
    },
    {
      name: 'heap per aggregate state (CPU + memory histograms)',
      value: bytes / STATES,
      unit: 'bytes',
      target: { comparison: '<=', value: 1536 },
    },
  ];
}
