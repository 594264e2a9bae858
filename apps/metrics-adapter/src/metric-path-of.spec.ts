import fc from 'fast-check';
import { parseMetricPath } from '@tandem/custom-metrics';
import { metricPathOf } from './metric-path-of.js';

describe('metricPathOf', () => {
  it('answers what parseMetricPath answers, whatever paths came before', () => {
    const segment = fc.constantFrom(
      'apis',
      'custom.metrics.k8s.io',
      'v1beta1',
      'v1beta2',
      'namespaces',
      'shop',
      'pods',
      '*',
      '%2A',
      'deployments.apps',
      'web',
      'cpu_usage',
      'metrics',
      '',
    );
    const path = fc
      .array(segment, { maxLength: 7 })
      .map((segments) => `/${segments.join('/')}`);
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 20 }), (paths) => {
        for (const asked of paths)
          expect(metricPathOf(asked)).toEqual(parseMetricPath(asked));
      }),
    );
  });
});
