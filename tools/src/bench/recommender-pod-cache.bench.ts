import { sharedParts, withoutManagedFields } from '@tandem/kube';
import { recommenderPod } from '@tandem/recommender-core';
import { retainedHeapBytes } from './measure.js';
import { podAt } from './realistic-cluster.js';
import type { Figure } from './report.js';

/** The recommender-cycle bench's cluster: 25,000 pods, 2–3 per ReplicaSet (one per VPA). */
const SHAPE = { pods: 25_000, namespaces: 100, replicaSets: 10_000 };

/**
 * What the recommender's pod cache holds per pod, for pods as a real API server lists them
 * (`realistic-cluster.ts`: two containers with environment and probes, labels, kubectl's
 * last-applied annotation on every fourth, a Running status), each parsed from its own JSON
 * as the cache's list and watch do: kept whole but for managedFields (the default of every
 * cache, and the recommender's until it reduced its pods), and as `recommenderPod` keeps it.
 */
export async function recommenderPodCacheFigures(): Promise<Figure[]> {
  const listed = Array.from({ length: SHAPE.pods }, (_, index) =>
    JSON.stringify(podAt(SHAPE, index)),
  );
  const whole = retainedHeapBytes(() =>
    listed.map((text) => withoutManagedFields(JSON.parse(text))),
  );
  const share = sharedParts();
  const kept = retainedHeapBytes(() =>
    listed.map((text) => recommenderPod(JSON.parse(text), share)),
  );
  const perPod = (bytes: number) => bytes / SHAPE.pods;
  return [
    {
      name: "recommender's pod cache, heap per pod kept whole (managedFields dropped)",
      value: perPod(whole.bytes),
      unit: 'bytes',
      target: undefined,
    },
    {
      name: "recommender's pod cache, heap per pod as the recommender keeps it",
      value: perPod(kept.bytes),
      unit: 'bytes',
      target: { comparison: '<=', value: 1024 },
    },
  ];
}
