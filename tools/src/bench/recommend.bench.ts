import { recommendPod, seededRandom } from '@tandem/estimators';
import { medianOfRuns, retainedHeapBytes } from './measure.js';
import type { Figure } from './report.js';
import { containerProfiles, dayOfUsage } from './synthetic-usage.js';

const STATES = 50_000;

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
    profiles.map((profile) => dayOfUsage(profile, t0, random)),
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
      ...recommendMs,
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
