import fc from 'fast-check';
import { METRIC_NAMES } from './metric-names.js';
import { podMetric } from './pod-metric.js';
import { container, pod, used } from './pod.fixtures.js';
import { rememberedPodMetric } from './remembered-pod-metric.js';

const app = container('app', { cpu: '400m', memory: '1Gi' }, { cpu: '1' });
const sidecar = container('proxy', { cpu: '100m' }, { memory: '64Mi' });

describe('rememberedPodMetric', () => {
  it('answers what podMetric answers, for any metric, container and usage', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...METRIC_NAMES),
        fc.constantFrom(undefined, 'app', 'proxy', 'missing'),
        fc.option(
          fc.subarray([used('app', 191, 2 ** 20), used('proxy', 12, 10)]),
          { nil: undefined },
        ),
        fc.boolean(),
        (metric, name, usage, ready) => {
          const view = pod([app, sidecar], { ready });
          expect(rememberedPodMetric(view, usage, metric, name)).toEqual(
            podMetric(view, usage, metric, name),
          );
        },
      ),
    );
  });

  it('works a pod out once per usage read, metric and container, and anew for a new read', () => {
    const view = pod([app]);
    const first = [used('app', 191)];
    const metric = 'cpu_utilization_of_original_request';
    const once = rememberedPodMetric(view, first, metric, undefined);
    expect(rememberedPodMetric(view, first, metric, undefined)).toBe(once);
    expect(rememberedPodMetric(view, first, metric, 'app')).not.toBe(once);
    expect(rememberedPodMetric(view, first, 'cpu_usage', undefined)).not.toBe(
      once,
    );
    const refreshed = rememberedPodMetric(
      view,
      [used('app', 200)],
      metric,
      undefined,
    );
    expect([once.value, refreshed.value]).toEqual([47.75, 50]);
  });
});
