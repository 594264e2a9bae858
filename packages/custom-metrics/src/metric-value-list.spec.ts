import {
  describedPod,
  metricValueList,
  type MetricValue,
} from './metric-value-list.js';

const APP_SELECTOR = {
  matchExpressions: [
    { key: 'container', operator: 'In' as const, values: ['app'] },
  ],
};

const VALUES: MetricValue[] = [
  {
    describedObject: describedPod('shop', 'web-7d9c-abcde'),
    metric: 'cpu_utilization_of_original_request',
    selector: APP_SELECTOR,
    timestamp: '2026-01-01T12:00:00Z',
    windowSeconds: 60,
    value: 61.5,
  },
  {
    describedObject: describedPod('shop', 'web-7d9c-fghij'),
    metric: 'cpu_utilization_of_original_request',
    selector: undefined,
    timestamp: '2026-01-01T12:00:00Z',
    windowSeconds: 15,
    value: 60,
  },
];

describe('metricValueList', () => {
  it('writes the v1beta2 shape', () => {
    expect(metricValueList('v1beta2', VALUES)).toEqual({
      kind: 'MetricValueList',
      apiVersion: 'custom.metrics.k8s.io/v1beta2',
      metadata: {},
      items: [
        {
          describedObject: {
            kind: 'Pod',
            namespace: 'shop',
            name: 'web-7d9c-abcde',
            apiVersion: '/v1',
          },
          metric: {
            name: 'cpu_utilization_of_original_request',
            selector: APP_SELECTOR,
          },
          timestamp: '2026-01-01T12:00:00Z',
          windowSeconds: 60,
          value: '61500m',
        },
        {
          describedObject: {
            kind: 'Pod',
            namespace: 'shop',
            name: 'web-7d9c-fghij',
            apiVersion: '/v1',
          },
          metric: {
            name: 'cpu_utilization_of_original_request',
            selector: null,
          },
          timestamp: '2026-01-01T12:00:00Z',
          windowSeconds: 15,
          value: '60',
        },
      ],
    });
  });

  it('writes the v1beta1 shape: metricName, item-level selector, window', () => {
    expect(metricValueList('v1beta1', VALUES)).toEqual({
      kind: 'MetricValueList',
      apiVersion: 'custom.metrics.k8s.io/v1beta1',
      metadata: {},
      items: [
        {
          describedObject: {
            kind: 'Pod',
            namespace: 'shop',
            name: 'web-7d9c-abcde',
            apiVersion: '/v1',
          },
          metricName: 'cpu_utilization_of_original_request',
          timestamp: '2026-01-01T12:00:00Z',
          window: 60,
          value: '61500m',
          selector: APP_SELECTOR,
        },
        {
          describedObject: {
            kind: 'Pod',
            namespace: 'shop',
            name: 'web-7d9c-fghij',
            apiVersion: '/v1',
          },
          metricName: 'cpu_utilization_of_original_request',
          timestamp: '2026-01-01T12:00:00Z',
          window: 15,
          value: '60',
          selector: null,
        },
      ],
    });
  });

  it('keeps a null selector in the JSON text (no omitempty upstream)', () => {
    const [first] = VALUES;
    if (first === undefined) throw new Error('fixture');
    const text = JSON.stringify(
      metricValueList('v1beta2', [{ ...first, selector: undefined }]),
    );
    expect(text).toContain('"selector":null');
  });

  it.each(['v1beta1', 'v1beta2'] as const)(
    'answers an empty wildcard query in %s with no items',
    (version) => {
      expect(metricValueList(version, [])).toEqual({
        kind: 'MetricValueList',
        apiVersion: `custom.metrics.k8s.io/${version}`,
        metadata: {},
        items: [],
      });
    },
  );

  it('prints memory bytes without an exponent', () => {
    const [first] = VALUES;
    if (first === undefined) throw new Error('fixture');
    const list = metricValueList('v1beta2', [
      { ...first, metric: 'memory_usage', value: 2 ** 53 },
    ]) as { items: { value: string }[] };
    expect(list.items[0]?.value).toBe('9007199254740992');
  });
});
