import fc from 'fast-check';
import { METRIC_NAMES } from './metric-names.js';
import { formatMetricQuantity } from './metric-quantity.js';
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

const TIME = '2026-01-01T12:00:00Z';

const VALUES: MetricValue[] = [
  {
    describedObject: describedPod('shop', 'web-7d9c-abcde'),
    metric: 'cpu_utilization_of_original_request',
    selector: APP_SELECTOR,
    windowSeconds: 60,
    value: 61.5,
  },
  {
    describedObject: describedPod('shop', 'web-7d9c-fghij'),
    metric: 'cpu_utilization_of_original_request',
    selector: undefined,
    windowSeconds: 15,
    value: 60,
  },
];

describe('metricValueList', () => {
  it('writes the v1beta2 shape', () => {
    expect(
      JSON.parse(metricValueList('v1beta2', TIME, VALUES).toString()),
    ).toEqual({
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
          timestamp: TIME,
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
          timestamp: TIME,
          windowSeconds: 15,
          value: '60',
        },
      ],
    });
  });

  it('writes the v1beta1 shape: metricName, item-level selector, window', () => {
    expect(
      JSON.parse(metricValueList('v1beta1', TIME, VALUES).toString()),
    ).toEqual({
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
          timestamp: TIME,
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
          timestamp: TIME,
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
    const text = metricValueList('v1beta2', TIME, [
      { ...first, selector: undefined },
    ]).toString();
    expect(text).toContain('"selector":null');
  });

  it.each(['v1beta1', 'v1beta2'] as const)(
    'answers an empty wildcard query in %s with no items',
    (version) => {
      expect(JSON.parse(metricValueList(version, TIME, []).toString())).toEqual(
        {
          kind: 'MetricValueList',
          apiVersion: `custom.metrics.k8s.io/${version}`,
          metadata: {},
          items: [],
        },
      );
    },
  );

  it('prints memory bytes without an exponent', () => {
    const [first] = VALUES;
    if (first === undefined) throw new Error('fixture');
    const list = JSON.parse(
      metricValueList('v1beta2', TIME, [
        { ...first, metric: 'memory_usage', value: 2 ** 53 },
      ]).toString(),
    ) as { items: { value: string }[] };
    expect(list.items[0]?.value).toBe('9007199254740992');
  });

  it.each(['v1beta1', 'v1beta2'] as const)(
    'writes in %s exactly the bytes of JSON.stringify of the documented object',
    (version) => {
      const selector = fc.option(
        fc.constantFrom(APP_SELECTOR, { matchLabels: { 'a"b': 'c\\d é' } }),
        { nil: undefined },
      );
      const value = fc.record({
        describedObject: fc.oneof(
          fc
            .tuple(fc.string({ unit: 'binary' }), fc.string())
            .map(([namespace, name]) => describedPod(namespace, name)),
          fc.constant(describedPod('shop', 'repeated')),
        ),
        metric: fc.constantFrom(...METRIC_NAMES),
        selector,
        windowSeconds: fc.constantFrom(15, 60),
        value: fc.oneof(
          fc.integer({ min: 0, max: 1000 }),
          fc.double({ min: 0, max: 2 ** 60, noNaN: true }),
        ),
      });
      fc.assert(
        fc.property(
          fc.constantFrom(TIME, '2026-01-01T12:00:01Z', 'a"\\b'),
          fc.array(value, { maxLength: 8 }),
          (timestamp, values) => {
            expect(metricValueList(version, timestamp, values)).toEqual(
              Buffer.from(
                JSON.stringify(documented(version, timestamp, values)),
              ),
            );
          },
        ),
      );
    },
  );
});

/** The object each version documents, field by field in Go's order: the oracle. */
function documented(
  version: 'v1beta1' | 'v1beta2',
  timestamp: string,
  values: readonly MetricValue[],
): object {
  return {
    kind: 'MetricValueList',
    apiVersion: `custom.metrics.k8s.io/${version}`,
    metadata: {},
    items: values.map((value) =>
      version === 'v1beta2'
        ? {
            describedObject: value.describedObject,
            metric: { name: value.metric, selector: value.selector ?? null },
            timestamp,
            windowSeconds: value.windowSeconds,
            value: formatMetricQuantity(value.value),
          }
        : {
            describedObject: value.describedObject,
            metricName: value.metric,
            timestamp,
            window: value.windowSeconds,
            value: formatMetricQuantity(value.value),
            selector: value.selector ?? null,
          },
    ),
  };
}
