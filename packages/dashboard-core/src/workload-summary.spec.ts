import fc from 'fast-check';
import type {
  HpaMetric,
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  PerContainer,
  UsageByPod,
} from './observed.js';
import { nativeTarget, summarizeWorkload } from './workload-summary.js';

const vpa = (overrides: Partial<ObservedVpa> = {}): ObservedVpa => ({
  namespace: 'shop',
  name: 'web-vpa',
  targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  mode: 'Recreate',
  target: { app: { cpuMillicores: 250, memoryBytes: 268_435_456 } },
  lowerBound: { app: { cpuMillicores: 100, memoryBytes: 134_217_728 } },
  upperBound: { app: { cpuMillicores: 900, memoryBytes: 536_870_912 } },
  ...overrides,
});

const cpuAt60: HpaMetric = {
  type: 'Resource',
  name: 'cpu',
  targetType: 'Utilization',
  target: 60,
  current: 86,
};

const hpa = (overrides: Partial<ObservedHpa> = {}): ObservedHpa => ({
  namespace: 'shop',
  name: 'web-hpa',
  targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  minReplicas: 1,
  maxReplicas: 100,
  currentReplicas: 10,
  desiredReplicas: 10,
  metric: cpuAt60,
  ...overrides,
});

const pod = (
  name: string,
  requests: PerContainer,
  overrides: Partial<ObservedPod> = {},
): ObservedPod => ({
  name,
  pending: false,
  ready: true,
  requests,
  declared: requests,
  ...overrides,
});

/** `count` pods `web-0`… each with one `app` container requesting `cpu` millicores. */
const cpuPods = (count: number, cpu: number, memory = 1_000_000) =>
  Array.from({ length: count }, (_, i) =>
    pod(`web-${i}`, { app: { cpuMillicores: cpu, memoryBytes: memory } }),
  );

const usageOf = (
  pods: readonly ObservedPod[],
  cpu: number,
  memory = 500_000,
): UsageByPod =>
  new Map(
    pods.map((p) => [
      p.name,
      { app: { cpuMillicores: cpu, memoryBytes: memory } },
    ]),
  );

const workload = { namespace: 'shop', kind: 'Deployment', name: 'web' };

describe('summarizeWorkload', () => {
  it('shows a VPA-only workload with its recommendation and no native figure', () => {
    const pods = cpuPods(2, 500);
    const summary = summarizeWorkload({
      ...workload,
      vpa: vpa({ strategy: 'p95' }),
      pods,
      usage: usageOf(pods, 200),
    });
    expect(summary).toEqual({
      namespace: 'shop',
      kind: 'Deployment',
      name: 'web',
      vpa: {
        name: 'web-vpa',
        mode: 'Recreate',
        strategy: 'p95',
        target: { app: { cpuMillicores: 250, memoryBytes: 268_435_456 } },
        lowerBound: { app: { cpuMillicores: 100, memoryBytes: 134_217_728 } },
        upperBound: { app: { cpuMillicores: 900, memoryBytes: 536_870_912 } },
      },
      hpa: null,
      nativeEquivalentReplicas: null,
      nativeEquivalentReason: 'no HPA scales this workload',
      pods: 2,
      declared: { app: { cpuMillicores: 500, memoryBytes: 1_000_000 } },
      current: { app: { cpuMillicores: 500, memoryBytes: 1_000_000 } },
      usage: { app: { cpuMillicores: 200, memoryBytes: 500_000 } },
    });
  });

  it('gives a VPA without a strategy annotation a null strategy', () => {
    const summary = summarizeWorkload({
      ...workload,
      vpa: vpa(),
      pods: [],
      usage: new Map(),
    });
    expect(summary.vpa?.strategy).toBeNull();
  });

  it('shows an HPA-only workload with what a native HPA would run from the same usage', () => {
    // 10 pods at 600m of 690m requested: 86 % against a 60 % target, so 15 replicas.
    const pods = cpuPods(10, 690);
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa(),
      pods,
      usage: usageOf(pods, 600),
    });
    expect(summary.vpa).toBeNull();
    expect(summary.hpa).toEqual({
      name: 'web-hpa',
      currentReplicas: 10,
      desiredReplicas: 10,
      minReplicas: 1,
      maxReplicas: 100,
      metric: cpuAt60,
    });
    expect(summary.nativeEquivalentReplicas).toBe(15);
    expect(summary.nativeEquivalentReason).toBeNull();
    expect(summary.pods).toBe(10);
  });

  it('shows both a VPA and an HPA on one workload', () => {
    const pods = cpuPods(15, 460);
    const summary = summarizeWorkload({
      ...workload,
      vpa: vpa(),
      hpa: hpa({ currentReplicas: 15, desiredReplicas: 15 }),
      pods,
      usage: usageOf(pods, 400),
    });
    expect(summary.vpa?.name).toBe('web-vpa');
    expect(summary.hpa?.name).toBe('web-hpa');
    // 400 / 460 is 86 %: a native HPA would run ceil(15 × 86 / 60) = 22.
    expect(summary.nativeEquivalentReplicas).toBe(22);
    expect(summary.nativeEquivalentReason).toBeNull();
  });

  it('gives an HPA without a metric a null metric and a reason instead of a figure', () => {
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({ metric: undefined }),
      pods: cpuPods(2, 100),
      usage: new Map(),
    });
    expect(summary.hpa?.metric).toBeNull();
    expect(summary.nativeEquivalentReplicas).toBeNull();
    expect(summary.nativeEquivalentReason).toBe(
      'a native HPA has no equivalent of no metric',
    );
  });

  it('names the metric a native HPA has no equivalent of', () => {
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({
        metric: {
          type: 'Pods',
          name: 'http_requests_per_second',
          targetType: 'AverageValue',
          target: 100,
        },
      }),
      pods: cpuPods(2, 100),
      usage: new Map(),
    });
    expect(summary.nativeEquivalentReplicas).toBeNull();
    expect(summary.nativeEquivalentReason).toBe(
      'a native HPA has no equivalent of Pods metric http_requests_per_second',
    );
  });

  it('passes on why the native figure is unknown', () => {
    const pods = cpuPods(3, 100);
    const noUsage = summarizeWorkload({
      ...workload,
      hpa: hpa({ currentReplicas: 3 }),
      pods,
      usage: new Map(),
    });
    expect(noUsage.nativeEquivalentReplicas).toBeNull();
    expect(noUsage.nativeEquivalentReason).toMatch(/no metrics/);
    const scaledToZero = summarizeWorkload({
      ...workload,
      hpa: hpa({ currentReplicas: 0 }),
      pods: [],
      usage: new Map(),
    });
    expect(scaledToZero.nativeEquivalentReason).toBe(
      'the workload is scaled to zero',
    );
    const noRequests = summarizeWorkload({
      ...workload,
      hpa: hpa({ currentReplicas: 3 }),
      pods: pods.map((p) => ({ ...p, requests: { app: {} } })),
      usage: usageOf(pods, 50),
    });
    expect(noRequests.nativeEquivalentReason).toBe(
      'the pods declare no request for the resource',
    );
  });

  it('counts a native memory HPA on the pods memory requests and usage', () => {
    // 4 pods at 900 of 1,000 bytes: 90 % against 60 %, so ceil(4 × 1.5) = 6.
    const pods = cpuPods(4, 100, 1000);
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({
        currentReplicas: 4,
        metric: { ...cpuAt60, name: 'memory' },
      }),
      pods,
      usage: usageOf(pods, 1, 900),
    });
    expect(summary.nativeEquivalentReplicas).toBe(6);
  });

  it("sums a pod's containers for the native figure, as the HPA's Resource metric does", () => {
    // app 100m + sidecar 100m requested, 120m + 0m used: 60 % of 200m, on target.
    const pods = [0, 1].map((i) =>
      pod(`web-${i}`, {
        app: { cpuMillicores: 100 },
        sidecar: { cpuMillicores: 100 },
      }),
    );
    const usage: UsageByPod = new Map(
      pods.map((p) => [
        p.name,
        { app: { cpuMillicores: 120 }, sidecar: { cpuMillicores: 0 } },
      ]),
    );
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({ currentReplicas: 2 }),
      pods,
      usage,
    });
    expect(summary.nativeEquivalentReplicas).toBe(2);
  });

  it('leaves pending and unready pods out of a CPU scale-up, as the HPA does', () => {
    // Two ready pods at 100 % of a 50 % target, one pending, one unready: the two unready
    // count as using nothing on the way up, so 200 / 400 = 50 %: hold at 4.
    const pods = [
      ...cpuPods(2, 100),
      pod('web-p', { app: { cpuMillicores: 100 } }, { pending: true }),
      pod('web-u', { app: { cpuMillicores: 100 } }, { ready: false }),
    ];
    const usage: UsageByPod = new Map(
      pods.map((p) => [p.name, { app: { cpuMillicores: 100 } }]),
    );
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({
        currentReplicas: 4,
        metric: { ...cpuAt60, target: 50 },
      }),
      pods,
      usage,
    });
    expect(summary.nativeEquivalentReplicas).toBe(4);
  });

  it('drives the native figure from a Tandem percent-of-original-request metric', () => {
    const pods = cpuPods(10, 690);
    const summary = summarizeWorkload({
      ...workload,
      hpa: hpa({
        metric: {
          type: 'Pods',
          name: 'cpu_utilization_of_original_request',
          targetType: 'AverageValue',
          target: 60,
          current: 60,
        },
      }),
      pods,
      usage: usageOf(pods, 600),
    });
    // A native HPA reads the requests the VPA lowered to: 86 %, so 15.
    expect(summary.nativeEquivalentReplicas).toBe(15);
  });

  it('keeps, per container and value, the largest request and declaration over the pods', () => {
    // A rollout in progress: the new pod's bigger CPU, the old one's bigger memory.
    const pods = [
      pod(
        'old',
        { app: { cpuMillicores: 100, memoryBytes: 300 } },
        { declared: { app: { cpuMillicores: 500, memoryBytes: 100 } } },
      ),
      pod(
        'new',
        {
          app: { cpuMillicores: 250, memoryBytes: 200 },
          sidecar: { cpuMillicores: 10 },
        },
        { declared: { app: { cpuMillicores: 400, memoryBytes: 900 } } },
      ),
    ];
    const summary = summarizeWorkload({
      ...workload,
      pods,
      usage: new Map(),
    });
    expect(summary.current).toEqual({
      app: { cpuMillicores: 250, memoryBytes: 300 },
      sidecar: { cpuMillicores: 10 },
    });
    expect(summary.declared).toEqual({
      app: { cpuMillicores: 500, memoryBytes: 900 },
    });
  });

  it('has empty declared, current and usage without pods', () => {
    const summary = summarizeWorkload({
      ...workload,
      vpa: vpa(),
      pods: [],
      usage: new Map([['elsewhere', { app: { cpuMillicores: 1 } }]]),
    });
    expect(summary).toMatchObject({
      pods: 0,
      declared: {},
      current: {},
      usage: {},
    });
  });

  it('averages usage per container over the pods that have a snapshot, ignoring other pods', () => {
    const pods = [
      pod('a', { app: { cpuMillicores: 100 } }),
      pod('b', { app: { cpuMillicores: 100 } }),
      pod('c', { app: { cpuMillicores: 100 } }),
    ];
    const usage: UsageByPod = new Map<string, PerContainer>([
      [
        'a',
        {
          app: { cpuMillicores: 100, memoryBytes: 1000 },
          sidecar: { cpuMillicores: 4, memoryBytes: 10 },
        },
      ],
      ['b', { app: { cpuMillicores: 300, memoryBytes: 3000 } }],
      // c has no snapshot; d is not one of the workload's pods.
      ['d', { app: { cpuMillicores: 10_000, memoryBytes: 1 } }],
    ]);
    const summary = summarizeWorkload({ ...workload, pods, usage });
    expect(summary.usage).toEqual({
      app: { cpuMillicores: 200, memoryBytes: 2000 },
      sidecar: { cpuMillicores: 4, memoryBytes: 10 },
    });
  });

  it('never throws and keeps its counts consistent, whatever the pods and usage', () => {
    const resources = fc.record(
      {
        cpuMillicores: fc.integer({ min: 0, max: 10_000 }),
        memoryBytes: fc.integer({ min: 0, max: 2 ** 34 }),
      },
      { requiredKeys: [] },
    );
    const perContainer = fc.dictionary(
      fc.constantFrom('app', 'sidecar', 'init'),
      resources,
    );
    const pods = fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('p0', 'p1', 'p2', 'p3', 'p4', 'p5'),
        pending: fc.boolean(),
        ready: fc.boolean(),
        requests: perContainer,
        declared: perContainer,
      }),
      { selector: (p) => p.name, maxLength: 6 },
    );
    const usage = fc
      .array(fc.tuple(fc.constantFrom('p0', 'p1', 'p2', 'p9'), perContainer))
      .map((entries) => new Map(entries));
    const metric = fc.option(
      fc.record({
        type: fc.constantFrom(
          'Resource',
          'ContainerResource',
          'Pods',
          'Object',
        ),
        name: fc.constantFrom(
          'cpu',
          'memory',
          'cpu_utilization_of_original_request',
          'memory_usage',
          'queue',
        ),
        targetType: fc.constantFrom(
          'Utilization' as const,
          'AverageValue' as const,
          'Value' as const,
        ),
        target: fc.integer({ min: 0, max: 200 }),
      }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        pods,
        usage,
        metric,
        fc.integer({ min: 0, max: 20 }),
        (pods, usage, metric, currentReplicas) => {
          const summary = summarizeWorkload({
            ...workload,
            hpa: hpa({
              currentReplicas,
              minReplicas: 1,
              maxReplicas: 30,
              metric,
            }),
            pods,
            usage,
          });
          expect(summary.pods).toBe(pods.length);
          // Exactly one of a figure and a reason.
          expect(
            (summary.nativeEquivalentReplicas === null) !==
              (summary.nativeEquivalentReason === null),
          ).toBe(true);
          if (summary.nativeEquivalentReplicas !== null) {
            expect(summary.nativeEquivalentReplicas).toBeGreaterThanOrEqual(1);
            expect(summary.nativeEquivalentReplicas).toBeLessThanOrEqual(30);
          }
          for (const [container, largest] of Object.entries(summary.current))
            for (const p of pods) {
              const value = p.requests[container]?.cpuMillicores;
              if (value !== undefined)
                expect(largest.cpuMillicores).toBeGreaterThanOrEqual(value);
            }
        },
      ),
    );
  });
});

describe('nativeTarget', () => {
  const metric = (overrides: Partial<HpaMetric>): HpaMetric => ({
    type: 'Resource',
    name: 'cpu',
    targetType: 'Utilization',
    target: 70,
    ...overrides,
  });

  it.each([
    [
      'Resource cpu Utilization',
      metric({}),
      { resource: 'cpu', targetUtilization: 70 },
    ],
    [
      'Resource memory Utilization',
      metric({ name: 'memory', target: 80 }),
      { resource: 'memory', targetUtilization: 80 },
    ],
    [
      'ContainerResource cpu Utilization',
      metric({ type: 'ContainerResource', target: 55 }),
      { resource: 'cpu', targetUtilization: 55 },
    ],
    [
      'ContainerResource memory Utilization',
      metric({ type: 'ContainerResource', name: 'memory' }),
      { resource: 'memory', targetUtilization: 70 },
    ],
    [
      'Pods cpu_utilization_of_original_request (percent, as an AverageValue)',
      metric({
        type: 'Pods',
        name: 'cpu_utilization_of_original_request',
        targetType: 'AverageValue',
        target: 40,
      }),
      { resource: 'cpu', targetUtilization: 40 },
    ],
    [
      'Object memory_utilization_of_original_request (percent, as a Value)',
      metric({
        type: 'Object',
        name: 'memory_utilization_of_original_request',
        targetType: 'Value',
        target: 65,
      }),
      { resource: 'memory', targetUtilization: 65 },
    ],
  ])('reads %s as a native target', (_name, given, expected) => {
    expect(nativeTarget(given)).toEqual(expected);
  });

  it.each([
    ['no metric', undefined],
    [
      'a Resource AverageValue (an absolute amount, not a percent)',
      metric({ targetType: 'AverageValue', target: 200 }),
    ],
    ['a Resource Value', metric({ targetType: 'Value' })],
    [
      'a Resource other than cpu and memory',
      metric({ name: 'ephemeral-storage' }),
    ],
    [
      'a ContainerResource AverageValue',
      metric({ type: 'ContainerResource', targetType: 'AverageValue' }),
    ],
    [
      "Tandem's cpu_usage (an amount, no base)",
      metric({ type: 'Pods', name: 'cpu_usage', targetType: 'AverageValue' }),
    ],
    [
      "Tandem's memory_usage",
      metric({
        type: 'Pods',
        name: 'memory_usage',
        targetType: 'AverageValue',
      }),
    ],
    [
      'a custom Pods metric',
      metric({
        type: 'Pods',
        name: 'http_requests_per_second',
        targetType: 'AverageValue',
      }),
    ],
    [
      'an External metric',
      metric({ type: 'External', name: 'queue_length', targetType: 'Value' }),
    ],
  ])('finds no native equivalent for %s', (_name, given) => {
    expect(nativeTarget(given)).toBeUndefined();
  });
});
