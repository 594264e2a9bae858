import type { V1Pod } from '@kubernetes/client-node';
import type { PodContainerUsage } from '@tandem/kube';
import { Registry } from '@tandem/telemetry';
import { inMemoryVpaStore } from '../checkpoints/in-memory-vpa-store.js';
import { NS, vpaObject } from '../model/model.fixtures.js';
import { recommenderMetrics } from '../recommender-metrics.js';
import { defaultCycleSettings, freshCycleState } from './cycle-context.js';
import { oneVpaInputs, quietObservability } from './cycle.fixtures.js';
import { runCycle } from './cycle.js';

const START_MS = Date.parse('2026-11-25T00:00:00Z');
const SELECTED = { app: 'web' };

/**
 * A pod with app container `app`, plain init container `migrate` and native sidecar `mesh`;
 * metrics.k8s.io reports all three (a sidecar runs beside the app; a stale init sample is
 * what a metrics source may still hold), for three cycles a minute apart.
 */
async function recommendedNames(nativeSidecars: boolean): Promise<string[]> {
  const store = inMemoryVpaStore([vpaObject('web')]);
  const pod: V1Pod = {
    metadata: { namespace: NS, name: 'web-1', labels: SELECTED },
    spec: {
      containers: [{ name: 'app' }],
      initContainers: [
        { name: 'migrate' },
        { name: 'mesh', restartPolicy: 'Always' },
      ],
    },
    status: { phase: 'Running' },
  };
  let nowMs = START_MS;
  const context = {
    settings: defaultCycleSettings({
      checkpointsEnabled: false,
      nativeSidecars,
    }),
    inputs: oneVpaInputs({
      store,
      pods: () => [pod],
      selector: SELECTED,
      usages: () =>
        ['app', 'migrate', 'mesh'].map(
          (container): PodContainerUsage => ({
            namespace: NS,
            pod: 'web-1',
            container,
            timeMs: nowMs,
            cpuMillicores: 100,
            memoryBytes: 64 * 2 ** 20,
          }),
        ),
      ooms: [],
      clock: () => nowMs,
    }),
    store,
    observability: quietObservability(recommenderMetrics(new Registry())),
    state: freshCycleState({ model: {} }, START_MS),
  };
  for (let cycle = 0; cycle < 3; cycle += 1) {
    nowMs += 60_000;
    await runCycle(context, nowMs);
  }
  return (
    store
      .listVpas()[0]
      ?.status?.recommendation?.containerRecommendations?.map(
        ({ containerName }) => containerName,
      ) ?? []
  ).sort();
}

describe('the cycle over native sidecars (AEP-8905)', () => {
  it('with NativeSidecar on, recommends the sidecar like a container, never the plain init container', async () => {
    expect(await recommendedNames(true)).toEqual(['app', 'mesh']);
  });

  it('with the gate off (the default), recommends the app container only, as upstream 1.8', async () => {
    expect(await recommendedNames(false)).toEqual(['app']);
  });
});
