import fc from 'fast-check';
import {
  anyChange,
  anyMetricRequest,
  anyPodUsage,
  anyView,
} from './answer-arbitraries.fixtures.js';
import {
  answerMetricQuery,
  pickedFrom,
  type MetricInputs,
  type PodsPicked,
} from './metric-answer.js';
import { parseMetricPath } from './metric-path.js';
import { planMetricRequest, type MetricAnswer } from './metric-plan.js';
import {
  annotationFor,
  container,
  ORIGINAL_RESOURCES,
  pod,
  used,
} from './pod.fixtures.js';
import type { ContainerUsage, PodForMetrics } from './pod-for-metrics.js';

const V2 = '/apis/custom.metrics.k8s.io/v1beta2';
const NOW = new Date('2026-01-01T12:00:00.123Z');
const APP = container('app', { cpu: '400m', memory: '100Mi' });

/** A ready pod of `app: web` requesting 400m, annotated as the webhook does. */
const web = (name: string, more: Partial<PodForMetrics> = {}) =>
  pod([APP], { name, annotations: annotationFor([APP]), ...more });

const usageOf = (
  entries: Record<string, number>,
): ReadonlyMap<string, readonly ContainerUsage[]> =>
  new Map(
    Object.entries(entries).map(([name, millicores]) => [
      name,
      [used('app', millicores, 50 * 2 ** 20)],
    ]),
  );

const TWO_WEB_PODS = [web('web-1'), web('web-2')];

const inputs = ({
  pods = TWO_WEB_PODS,
  ...more
}: Partial<Omit<MetricInputs, 'pods'>> & {
  pods?: PodForMetrics[];
} = {}): MetricInputs => ({
  pods: pickedFrom(pods),
  usage: { usage: usageOf({ 'web-1': 191, 'web-2': 195 }) },
  sourceName: 'metrics.k8s.io',
  now: NOW,
  ...more,
});

/**
 * Both halves, as the app runs them, with the body parsed; `read` is false when nothing
 * was to be read. The body's item count is checked against the body here, once for all.
 */
function answer(
  path: string,
  query: Record<string, unknown> = {},
  given: MetricInputs = inputs(),
): Omit<MetricAnswer, 'body' | 'items' | 'stamped'> & {
  body: object;
  read: boolean;
} {
  const plan = planMetricRequest(parseMetricPath(path), path, query);
  const {
    body,
    items: count,
    stamped,
    ...answered
  } = 'answer' in plan ? plan.answer : answerMetricQuery(plan.query, given);
  const parsed = JSON.parse(body.toString()) as { items?: unknown[] };
  expect(count).toBe(parsed.items?.length ?? 0);
  // A list that can be stamped anew is the body itself.
  expect(stamped === undefined || stamped.body === body).toBe(true);
  return { ...answered, body: parsed, read: !('answer' in plan) };
}

const items = (body: object) =>
  (body as { items: { describedObject: { name: string }; value: string }[] })
    .items;
const message = (body: object) => (body as { message: string }).message;

describe('planMetricRequest: answers that need no input', () => {
  it('answers discovery without reading anything', () => {
    const discovery = answer(V2);
    expect({ code: discovery.code, read: discovery.read }).toEqual({
      code: 200,
      read: false,
    });
    expect(discovery.body).toMatchObject({ kind: 'APIResourceList' });
  });

  it.each([
    [
      `${V2}/namespaces/shop/pods/*/cpu_load`,
      {},
      404,
      'the server could not find the metric cpu_load for pods (served: cpu_utilization_of_limit, memory_utilization_of_limit, cpu_utilization_of_original_request, memory_utilization_of_original_request, cpu_usage, memory_usage)',
    ],
    [
      `${V2}/namespaces/shop/pods/*/cpu_usage`,
      { labelSelector: 'app in (web' },
      400,
      expect.stringMatching(/^labelSelector: /),
    ],
    [
      `${V2}/namespaces/shop/pods/*/cpu_usage`,
      { metricLabelSelector: 'tier=front' },
      400,
      expect.stringMatching(
        /^metricLabelSelector supports only container=<name>/,
      ),
    ],
    [
      `${V2}/namespaces/shop/statefulsets.apps/db/cpu_usage`,
      {},
      404,
      'the server could not find the metric cpu_usage for statefulsets.apps db: Tandem serves per-pod metrics (pods/*/<metric>) and utilizations per Deployment (deployments.apps/<name>/<metric>) only',
    ],
    [
      `${V2}/namespaces/shop/deployments.apps/web/cpu_usage`,
      {},
      404,
      'the server could not find the metric cpu_usage for deployments.apps web (served for deployments.apps: cpu_utilization_of_limit, memory_utilization_of_limit, cpu_utilization_of_original_request, memory_utilization_of_original_request)',
    ],
    [
      `${V2}/namespaces/shop/deployments.apps/*/cpu_utilization_of_limit`,
      {},
      404,
      'the server could not find the metric cpu_utilization_of_limit for deployments.apps: Tandem serves one named Deployment at a time (deployments.apps/<name>/cpu_utilization_of_limit)',
    ],
    [
      '/apis/custom.metrics.k8s.io/v1/namespaces',
      {},
      404,
      'the server could not find /apis/custom.metrics.k8s.io/v1/namespaces',
    ],
  ])('%s %j: %d', (path, query, code, text) => {
    const result = answer(path, query);
    expect({
      code: result.code,
      read: result.read,
      message: message(result.body),
      observations: result.observations,
    }).toEqual({
      code,
      read: false,
      message: text,
      observations: {
        originals: {},
        malformedAnnotations: [],
        currentRequests: [],
      },
    });
  });
});

describe('answerMetricQuery: pods', () => {
  it('offers the app every pod by name and labels, and measures only those picked', () => {
    const offered: string[] = [];
    const pods: PodsPicked = (picked) =>
      [web('web-1'), web('api-1', { labels: { app: 'api' } })].filter((pod) => {
        offered.push(pod.name);
        return picked(pod.name, pod.labels);
      });
    const result = answer(
      `${V2}/namespaces/shop/pods/*/cpu_usage`,
      { labelSelector: 'app=web' },
      { ...inputs(), pods },
    );
    expect(offered).toEqual(['web-1', 'api-1']);
    expect(
      (
        result.body as { items: { describedObject: { name: string } }[] }
      ).items.map((item) => item.describedObject.name),
    ).toEqual(['web-1']);
  });

  it('serves each ready pod the selector picks, utilization in whole percent, truncated', () => {
    // 191m and 195m of 400m: 47.75 % and 48.75 %.
    const result = answer(
      `${V2}/namespaces/shop/pods/*/cpu_utilization_of_original_request`,
      { labelSelector: 'app=web' },
      inputs({
        pods: [
          web('web-1'),
          web('web-2'),
          web('web-3', { ready: false }),
          web('api-1', { labels: { app: 'api' } }),
        ],
      }),
    );
    expect(result).toEqual({
      code: 200,
      read: true,
      body: {
        kind: 'MetricValueList',
        apiVersion: 'custom.metrics.k8s.io/v1beta2',
        metadata: {},
        items: ['web-1', 'web-2'].map((name, index) => ({
          describedObject: {
            kind: 'Pod',
            namespace: 'shop',
            name,
            apiVersion: '/v1',
          },
          metric: {
            name: 'cpu_utilization_of_original_request',
            selector: null,
          },
          timestamp: '2026-01-01T12:00:00Z',
          windowSeconds: 60,
          value: ['47', '48'][index],
        })),
      },
      // web-3 is measured (and not ready), api-1 is not picked.
      observations: {
        originals: { annotation: 3 },
        malformedAnnotations: [],
        currentRequests: [],
      },
    });
  });

  it('keeps usage metrics as quantities', () => {
    const result = answer(`${V2}/namespaces/shop/pods/web-1/cpu_usage`);
    expect(items(result.body).map((item) => item.value)).toEqual(['191m']);
  });

  it('answers a named pod without a value with a 404 that says why', () => {
    const result = answer(
      `${V2}/namespaces/shop/pods/web-1/cpu_utilization_of_limit`,
      { metricLabelSelector: 'container=app' },
    );
    expect({ code: result.code, message: message(result.body) }).toEqual({
      code: 404,
      message:
        'the server could not find the metric cpu_utilization_of_limit for pods web-1 with selector container=app: web-1: container app has no cpu limit',
    });
  });

  it('answers 200 with no item for `*` when no pod has a value, and says why in the observations', () => {
    const result = answer(
      `${V2}/namespaces/shop/pods/*/cpu_utilization_of_limit`,
    );
    expect({
      code: result.code,
      items: items(result.body),
      noValue: result.observations.noValue,
    }).toEqual({
      code: 200,
      items: [],
      noValue: [
        'web-1: container app has no cpu limit',
        'web-2: container app has no cpu limit',
      ],
    });
  });

  it('answers 503 when the usage source failed, and observes the failure', () => {
    const result = answer(
      `${V2}/namespaces/shop/pods/*/cpu_usage`,
      {},
      inputs({ usage: { failure: 'connection refused' } }),
    );
    expect({
      code: result.code,
      message: message(result.body),
      failure: result.observations.sourceFailure,
    }).toEqual({
      code: 503,
      message:
        'unable to read pod usage for namespace shop from metrics.k8s.io: connection refused',
      failure: 'connection refused',
    });
  });

  it('observes malformed annotations and the fallback to current requests', () => {
    const result = answer(
      `${V2}/namespaces/shop/pods/*/cpu_utilization_of_original_request`,
      {},
      inputs({
        pods: [
          web('web-1', { annotations: { [ORIGINAL_RESOURCES]: '{' } }),
          web('web-2', { annotations: {} }),
        ],
      }),
    );
    expect(result.observations).toEqual({
      originals: { current: 2 },
      malformedAnnotations: [
        {
          namespace: 'shop',
          pod: 'web-1',
          annotation: expect.any(String),
          fallback: 'current',
        },
      ],
      currentRequests: [{ namespace: 'shop', pod: 'web-2' }],
    });
  });
});

describe('answerMetricQuery: a Deployment (Object metric)', () => {
  const path = `${V2}/namespaces/shop/deployments.apps/web/cpu_utilization_of_original_request`;
  const selector = { matchLabels: { app: 'web' } };

  it('serves the mean over its Ready pods, truncated once to whole percent', () => {
    // 47.75 % and 48.75 %: 48.25 → 48; the unready pod and another app's are left out.
    const result = answer(
      path,
      {},
      inputs({
        pods: [
          web('web-1'),
          web('web-2'),
          web('web-3', { ready: false }),
          web('api-1', { labels: { app: 'api' } }),
        ],
        usage: {
          usage: usageOf({
            'web-1': 191,
            'web-2': 195,
            'web-3': 400,
            'api-1': 400,
          }),
        },
        deployment: { selector },
      }),
    );
    expect({ code: result.code, body: result.body }).toEqual({
      code: 200,
      body: {
        kind: 'MetricValueList',
        apiVersion: 'custom.metrics.k8s.io/v1beta2',
        metadata: {},
        items: [
          {
            describedObject: {
              kind: 'Deployment',
              namespace: 'shop',
              name: 'web',
              apiVersion: 'apps/v1',
            },
            metric: {
              name: 'cpu_utilization_of_original_request',
              selector: null,
            },
            timestamp: '2026-01-01T12:00:00Z',
            windowSeconds: 60,
            value: '48',
          },
        ],
      },
    });
  });

  it('writes the v1beta1 shape too', () => {
    const result = answer(
      path.replace('v1beta2', 'v1beta1'),
      { metricLabelSelector: 'container=app' },
      inputs({ deployment: { selector } }),
    );
    expect(items(result.body)).toEqual([
      expect.objectContaining({
        describedObject: expect.objectContaining({ kind: 'Deployment' }),
        metricName: 'cpu_utilization_of_original_request',
        window: 60,
        value: '48',
      }),
    ]);
  });

  it.each([
    [
      { notFound: true as const },
      TWO_WEB_PODS,
      404,
      'the server could not find the metric cpu_utilization_of_original_request for deployments.apps web: deployment shop/web not found',
    ],
    [
      { failure: 'Forbidden' },
      TWO_WEB_PODS,
      503,
      'unable to read deployment shop/web: Forbidden',
    ],
    [
      { selector },
      [web('web-1', { ready: false })],
      404,
      'the server could not find the metric cpu_utilization_of_original_request for deployments.apps web: no Ready pod of deployment shop/web has a value: web-1: pod not ready',
    ],
    [
      { selector: { matchLabels: { app: 'none' } } },
      TWO_WEB_PODS,
      404,
      'the server could not find the metric cpu_utilization_of_original_request for deployments.apps web: no Ready pod of deployment shop/web has a value (no pod matches its selector)',
    ],
  ])('%j → %d', (deployment, pods, code, text) => {
    const result = answer(path, {}, inputs({ deployment, pods }));
    expect({ code: result.code, message: message(result.body) }).toEqual({
      code,
      message: text,
    });
  });
});

describe('a metric request, planned and answered: properties', () => {
  const names = ['a-1', 'a-2', 'b-1', 'b-2'];
  const anyPod = fc.record({
    name: fc.constantFrom(...names),
    app: fc.constantFrom('a', 'b'),
    ready: fc.boolean(),
    measured: fc.boolean(),
    millicores: fc.integer({ min: 0, max: 2000 }),
  });
  const scenario = fc.record({
    pods: fc.uniqueArray(anyPod, { selector: (p) => p.name, maxLength: 4 }),
    name: fc.constantFrom('*', ...names),
    labelSelector: fc.constantFrom(undefined, 'app=a', 'app!=a'),
    metric: fc.constantFrom('cpu_utilization_of_original_request', 'cpu_usage'),
  });
  type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

  function answerScenario({ pods, name, labelSelector, metric }: Scenario) {
    return answer(
      `${V2}/namespaces/shop/pods/${name}/${metric}`,
      labelSelector === undefined ? {} : { labelSelector },
      inputs({
        pods: pods.map((p) =>
          web(p.name, { labels: { app: p.app }, ready: p.ready }),
        ),
        usage: {
          usage: usageOf(
            Object.fromEntries(
              pods.filter((p) => p.measured).map((p) => [p.name, p.millicores]),
            ),
          ),
        },
      }),
    );
  }

  it('serves exactly the ready, measured pods that the name and labelSelector pick', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const result = answerScenario(s);
        const picked = s.pods.filter(
          (p) =>
            (s.name === '*' || p.name === s.name) &&
            (s.labelSelector === undefined ||
              (s.labelSelector === 'app=a') === (p.app === 'a')),
        );
        const served = picked
          .filter((p) => p.ready && p.measured)
          .map((p) => p.name);
        if (result.code === 200)
          expect(items(result.body).map((i) => i.describedObject.name)).toEqual(
            served,
          );
        else
          expect({ code: result.code, served }).toEqual({
            code: 404,
            served: [],
          });
      }),
      { numRuns: 500 },
    );
  });

  it('never answers a named pod with a 200 of no item', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const result = answerScenario(s);
        if (s.name !== '*' && result.code === 200)
          expect(items(result.body)).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the path and query', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            'apis',
            'custom.metrics.k8s.io',
            'v1beta2',
            'namespaces',
            'shop',
            'pods',
            'deployments.apps',
            '*',
            'cpu_usage',
            'cpu_utilization_of_limit',
            '',
          ),
          { maxLength: 7 },
        ),
        fc.dictionary(
          fc.constantFrom('labelSelector', 'metricLabelSelector'),
          fc.oneof(fc.string({ maxLength: 12 }), fc.constant(['a', 'b'])),
        ),
        (segments, query) => {
          const result = answer(`/${segments.join('/')}`, query, {
            ...inputs(),
            deployment: { selector: { matchLabels: { app: 'web' } } },
          });
          expect([200, 400, 404]).toContain(result.code);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('answers from remembered measures and items', () => {
  const view = anyView;
  const usage = anyPodUsage;
  // A step changes a pod, deletes one, reads usage anew for one pod or for all, or asks
  // a query.
  const step = fc.oneof(
    anyChange,
    fc.constant({ kind: 'refresh' as const }),
    anyMetricRequest.map((asked) => ({ kind: 'ask' as const, asked })),
  );

  it('answers byte for byte what fresh views and usage give, after any changes', () => {
    fc.assert(
      fc.property(
        fc.array(view, { minLength: 1 }),
        fc.array(usage, { minLength: 1 }),
        fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }),
        (first, firstRead, steps) => {
          const pods = new Map(first.map((p) => [p.name, p]));
          let read = new Map<string, readonly ContainerUsage[]>(firstRead);
          for (const s of steps) {
            if (s.kind === 'pod') pods.set(s.changed.name, s.changed);
            else if (s.kind === 'delete') pods.delete(s.name);
            else if (s.kind === 'usage') read = new Map([...read, s.read]);
            else if (s.kind === 'refresh') read = structuredClone(read);
            else {
              const { version, target, metric, query } = s.asked;
              const path = `/apis/custom.metrics.k8s.io/${version}/namespaces/shop/${target}/${metric}`;
              const plan = planMetricRequest(
                parseMetricPath(path),
                path,
                query,
              );
              if (!('query' in plan)) continue;
              const given = (views: PodForMetrics[], usage: typeof read) => ({
                pods: pickedFrom(views),
                usage: { usage },
                deployment: { selector: { matchLabels: { app: 'a' } } },
                sourceName: 'metrics.k8s.io',
                now: NOW,
              });
              const kept = answerMetricQuery(
                plan.query,
                given([...pods.values()], read),
              );
              const fresh = answerMetricQuery(
                plan.query,
                given(
                  structuredClone([...pods.values()]),
                  structuredClone(read),
                ),
              );
              expect(kept).toEqual(fresh);
              expect(kept.body.equals(fresh.body)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
