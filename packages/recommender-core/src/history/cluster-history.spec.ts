import { PrometheusResponseError } from '@tandem/prometheus-api';
import { clusterHistory } from './cluster-history.js';
import {
  LABEL_NAMES,
  podLabelsSeries,
  usageSeries,
} from './history.fixtures.js';

const T = 1_700_000_000_000;

describe('clusterHistory', () => {
  it('groups samples by pod and container, in time order, in upstream units', () => {
    const history = clusterHistory(
      {
        cpu: [
          usageSeries('shop', 'web-1', 'app', [
            [T + 120_000, 0.2509],
            [T, 1.9999],
            [T + 60_000, Number.NaN],
          ]),
          usageSeries('shop', 'web-1', 'proxy', [[T, 0.0005]]),
        ],
        memory: [
          usageSeries('shop', 'web-1', 'app', [
            [T + 60_000, 104857600.9],
            [T, Number.POSITIVE_INFINITY],
          ]),
        ],
        podLabels: [],
      },
      LABEL_NAMES,
    );
    expect([...history.keys()]).toEqual(['shop/web-1']);
    const pod = history.get('shop/web-1');
    expect(pod?.labels).toEqual({});
    expect(Object.fromEntries(pod?.containers ?? [])).toEqual({
      app: [
        { timeMs: T, resource: 'cpu', usage: 1999 },
        { timeMs: T + 60_000, resource: 'memory', usage: 104857600 },
        { timeMs: T + 120_000, resource: 'cpu', usage: 250 },
      ],
      proxy: [{ timeMs: T, resource: 'cpu', usage: 0 }],
    });
  });

  it('takes pod labels from the series seen last, prefix stripped', () => {
    const history = clusterHistory(
      {
        cpu: [usageSeries('shop', 'web-1', 'app', [[T, 1]])],
        memory: [],
        podLabels: [
          podLabelsSeries('shop', 'web-1', { app: 'web', track: 'new' }, [
            T,
            T + 600_000,
          ]),
          podLabelsSeries('shop', 'web-1', { app: 'web', track: 'old' }, [
            T + 300_000,
          ]),
          podLabelsSeries('shop', 'gone-2', { app: 'web' }, [T - 600_000]),
          podLabelsSeries('shop', 'never-up', { app: 'web' }, []),
        ],
      },
      LABEL_NAMES,
    );
    expect(
      [...history.values()].map(({ name, labels, lastSeenMs, containers }) => ({
        name,
        labels,
        lastSeenMs,
        containers: [...containers.keys()],
      })),
    ).toEqual([
      {
        name: 'web-1',
        labels: { app: 'web', track: 'new' },
        lastSeenMs: T + 600_000,
        containers: ['app'],
      },
      {
        name: 'gone-2',
        labels: { app: 'web' },
        lastSeenMs: T - 600_000,
        containers: [],
      },
    ]);
  });

  it('takes no pod labels with an empty prefix, as upstream', () => {
    const history = clusterHistory(
      {
        cpu: [],
        memory: [],
        podLabels: [podLabelsSeries('shop', 'web-1', { app: 'web' }, [T])],
      },
      { ...LABEL_NAMES, podLabelPrefix: '' },
    );
    expect(history.get('shop/web-1')?.labels).toEqual({});
  });

  it.each([
    [
      'a usage series without the container label',
      {
        cpu: [{ labels: { namespace: 'shop', pod_name: 'web-1' }, points: [] }],
        memory: [],
        podLabels: [],
      },
      'series {"namespace":"shop","pod_name":"web-1"} has no label name',
    ],
    [
      'a pod-labels series without the pod name label',
      {
        cpu: [],
        memory: [],
        podLabels: [
          {
            labels: { kubernetes_namespace: 'shop' },
            points: [{ timeMs: T, value: 1 }],
          },
        ],
      },
      'series {"kubernetes_namespace":"shop"} has no label kubernetes_pod_name',
    ],
  ])('rejects %s', (_, answers, message) =>
    expect(() => clusterHistory(answers, LABEL_NAMES)).toThrow(
      new PrometheusResponseError(message),
    ),
  );
});
