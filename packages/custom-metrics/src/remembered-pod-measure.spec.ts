import fc from 'fast-check';
import { METRIC_NAMES, type MetricName } from './metric-names.js';
import { podMetric } from './pod-metric.js';
import { container, pod, used } from './pod.fixtures.js';
import { rememberedPodMeasure } from './remembered-pod-measure.js';

const app = container('app', { cpu: '400m', memory: '1Gi' }, { cpu: '1' });
const sidecar = container('proxy', { cpu: '100m' }, { memory: '64Mi' });

const query = (metric: MetricName, name: string | undefined) => ({
  key: `${metric} ${name ?? ''}`,
  metric,
  container: name,
});

describe('rememberedPodMeasure', () => {
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
          expect(
            rememberedPodMeasure(view, usage, query(metric, name)).result,
          ).toEqual(podMetric(view, usage, metric, name));
        },
      ),
    );
  });

  it('works a pod out once per usage read and query, and anew for a new read', () => {
    const view = pod([app]);
    const first = [used('app', 191)];
    const metric = 'cpu_utilization_of_original_request';
    const once = rememberedPodMeasure(view, first, query(metric, undefined));
    expect(rememberedPodMeasure(view, first, query(metric, undefined))).toBe(
      once,
    );
    expect(rememberedPodMeasure(view, first, query(metric, 'app'))).not.toBe(
      once,
    );
    const refreshed = rememberedPodMeasure(
      view,
      [used('app', 200)],
      query(metric, undefined),
    );
    expect([once.result.value, refreshed.result.value]).toEqual([47.75, 50]);
  });

  it('remembers a pod without usage until its usage is read', () => {
    const view = pod([app]);
    const metric = 'cpu_usage';
    const none = rememberedPodMeasure(view, undefined, query(metric, 'app'));
    expect(none.result.reason).toBe('no metrics for pod');
    expect(rememberedPodMeasure(view, undefined, query(metric, 'app'))).toBe(
      none,
    );
    expect(
      rememberedPodMeasure(view, [used('app', 5)], query(metric, 'app')).result
        .value,
    ).toBe(0.005);
  });
});
