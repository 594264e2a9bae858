import fc from 'fast-check';
import {
  reducedEvent,
  reducedHpa,
  reducedPod,
  reducedVpa,
  resourcesOf,
} from './reduced-objects.js';

const metadata = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'shop', resourceVersion: '42', ...extra },
});

describe('resourcesOf', () => {
  it('reads cpu as millicores and memory as bytes', () => {
    expect(resourcesOf({ cpu: '250m', memory: '256Mi' })).toEqual({
      cpuMillicores: 250,
      memoryBytes: 268_435_456,
    });
    expect(resourcesOf({ cpu: '1.5', memory: '1G' })).toEqual({
      cpuMillicores: 1500,
      memoryBytes: 1_000_000_000,
    });
    expect(resourcesOf({ cpu: 2, memory: 1024 })).toEqual({
      cpuMillicores: 2000,
      memoryBytes: 1024,
    });
  });

  it('leaves out what is absent or unreadable', () => {
    expect(resourcesOf({ cpu: 'lots', memory: { value: 1 } })).toEqual({});
    expect(resourcesOf({ 'ephemeral-storage': '1Gi' })).toEqual({});
    expect(resourcesOf(undefined)).toEqual({});
    expect(resourcesOf(['250m'])).toEqual({});
  });
});

describe('reducedVpa', () => {
  const vpa = (status?: unknown, annotations?: Record<string, string>) => ({
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: {
      name: 'web-vpa',
      namespace: 'shop',
      resourceVersion: '7',
      ...(annotations === undefined ? {} : { annotations }),
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      updatePolicy: { updateMode: 'InPlaceOrRecreate' },
    },
    ...(status === undefined ? {} : { status }),
  });

  it('reads the target and the recommendation per container', () => {
    const reduced = reducedVpa(
      vpa({
        recommendation: {
          containerRecommendations: [
            {
              containerName: 'app',
              target: { cpu: '250m', memory: '256Mi' },
              lowerBound: { cpu: '100m', memory: '128Mi' },
              upperBound: { cpu: '1', memory: '1Gi' },
              uncappedTarget: { cpu: '260m', memory: '256Mi' },
            },
            {
              containerName: 'sidecar',
              target: { cpu: '10m' },
              lowerBound: { cpu: '5m' },
              upperBound: { cpu: '50m' },
            },
          ],
        },
      }),
    );
    expect(reduced).toEqual({
      metadata: { name: 'web-vpa', namespace: 'shop', resourceVersion: '7' },
      vpa: {
        namespace: 'shop',
        name: 'web-vpa',
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        mode: 'InPlaceOrRecreate',
        target: {
          app: { cpuMillicores: 250, memoryBytes: 268_435_456 },
          sidecar: { cpuMillicores: 10 },
        },
        lowerBound: {
          app: { cpuMillicores: 100, memoryBytes: 134_217_728 },
          sidecar: { cpuMillicores: 5 },
        },
        upperBound: {
          app: { cpuMillicores: 1000, memoryBytes: 1_073_741_824 },
          sidecar: { cpuMillicores: 50 },
        },
      },
    });
    expect(reduced.vpa).not.toHaveProperty('strategy');
  });

  it('has empty recommendations before the first one', () => {
    for (const status of [
      undefined,
      {},
      { recommendation: {} },
      { recommendation: null },
    ]) {
      const { vpa: reduced } = reducedVpa(vpa(status));
      expect(reduced.target).toEqual({});
      expect(reduced.lowerBound).toEqual({});
      expect(reduced.upperBound).toEqual({});
    }
  });

  it('skips a container recommendation without a name', () => {
    const { vpa: reduced } = reducedVpa(
      vpa({
        recommendation: {
          containerRecommendations: [
            { target: { cpu: '1' } },
            null,
            { containerName: 'app', target: { cpu: '2' } },
          ],
        },
      }),
    );
    expect(reduced.target).toEqual({ app: { cpuMillicores: 2000 } });
  });

  it('reads the tandem.dev/strategy annotation', () => {
    const { vpa: reduced } = reducedVpa(
      vpa(undefined, { 'tandem.dev/strategy': 'percentile(p=0.95)' }),
    );
    expect(reduced.strategy).toBe('percentile(p=0.95)');
  });

  it('reads an unset or empty update mode as Recreate, as getUpdateMode does', () => {
    const object = vpa();
    for (const updatePolicy of [undefined, {}, { updateMode: '' }]) {
      const { vpa: reduced } = reducedVpa({
        ...object,
        spec: { targetRef: object.spec.targetRef, updatePolicy },
      });
      expect(reduced.mode).toBe('Recreate');
    }
  });

  it('gives a target without kind or name empty strings, which the fleet leaves out', () => {
    const { vpa: reduced } = reducedVpa({ ...metadata('v'), spec: {} });
    expect(reduced.targetRef).toEqual({
      apiVersion: undefined,
      kind: '',
      name: '',
    });
  });
});

describe('reducedHpa', () => {
  const hpa = (
    metric: unknown,
    current?: unknown,
    extra: Record<string, unknown> = {},
  ) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    ...metadata('web-hpa'),
    spec: {
      scaleTargetRef: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
      },
      minReplicas: 2,
      maxReplicas: 20,
      metrics: metric === undefined ? [] : [metric],
      ...extra,
    },
    status: {
      currentReplicas: 5,
      desiredReplicas: 6,
      ...(current === undefined ? {} : { currentMetrics: [current] }),
    },
  });

  it('reads a Resource Utilization metric, and its current value from status.currentMetrics', () => {
    expect(
      reducedHpa(
        hpa(
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: 60 },
            },
          },
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              current: { averageUtilization: 86, averageValue: '430m' },
            },
          },
        ),
      ),
    ).toEqual({
      metadata: { name: 'web-hpa', namespace: 'shop', resourceVersion: '42' },
      hpa: {
        namespace: 'shop',
        name: 'web-hpa',
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 20,
        currentReplicas: 5,
        desiredReplicas: 6,
        metric: {
          type: 'Resource',
          name: 'cpu',
          targetType: 'Utilization',
          target: 60,
          current: 86,
        },
      },
    });
  });

  it('reads a ContainerResource metric by its resource name and container', () => {
    const { hpa: reduced } = reducedHpa(
      hpa({
        type: 'ContainerResource',
        containerResource: {
          name: 'memory',
          container: 'app',
          target: { type: 'Utilization', averageUtilization: 75 },
        },
      }),
    );
    expect(reduced.metric).toEqual({
      type: 'ContainerResource',
      name: 'memory',
      container: 'app',
      targetType: 'Utilization',
      target: 75,
    });
  });

  it.each([
    ['40', 40],
    ['40000m', 40],
    ['61500m', 61.5],
    ['1k', 1000],
  ])('reads a Pods AverageValue quantity %s as %d', (quantity, value) => {
    const { hpa: reduced } = reducedHpa(
      hpa(
        {
          type: 'Pods',
          pods: {
            metric: { name: 'cpu_utilization_of_original_request' },
            target: { type: 'AverageValue', averageValue: quantity },
          },
        },
        {
          type: 'Pods',
          pods: {
            metric: { name: 'cpu_utilization_of_original_request' },
            current: { averageValue: quantity },
          },
        },
      ),
    );
    expect(reduced.metric).toEqual({
      type: 'Pods',
      name: 'cpu_utilization_of_original_request',
      targetType: 'AverageValue',
      target: value,
      current: value,
    });
  });

  it('reads an Object Value metric', () => {
    const { hpa: reduced } = reducedHpa(
      hpa(
        {
          type: 'Object',
          object: {
            describedObject: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'web',
            },
            metric: { name: 'memory_utilization_of_original_request' },
            target: { type: 'Value', value: '70' },
          },
        },
        {
          type: 'Object',
          object: {
            describedObject: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'web',
            },
            metric: { name: 'memory_utilization_of_original_request' },
            current: { value: '72500m' },
          },
        },
      ),
    );
    expect(reduced.metric).toEqual({
      type: 'Object',
      name: 'memory_utilization_of_original_request',
      targetType: 'Value',
      target: 70,
      current: 72.5,
    });
  });

  it('leaves out the current value when status has none, or one of another type', () => {
    const spec = {
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: 60 },
      },
    };
    expect(reducedHpa(hpa(spec)).hpa.metric).not.toHaveProperty('current');
    // The controller leaves a metric it could not read as an empty status.
    expect(reducedHpa(hpa(spec, {})).hpa.metric).not.toHaveProperty('current');
    expect(
      reducedHpa(
        hpa(spec, {
          type: 'Pods',
          pods: { metric: { name: 'x' }, current: { averageValue: '5' } },
        }),
      ).hpa.metric,
    ).not.toHaveProperty('current');
  });

  it('has no metric without one, or with a target it cannot read', () => {
    expect(reducedHpa(hpa(undefined)).hpa).not.toHaveProperty('metric');
    for (const metric of [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization' } },
      },
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: '60' },
        },
      },
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Bogus', averageUtilization: 60 },
        },
      },
      {
        type: 'Pods',
        pods: {
          metric: { name: 'x' },
          target: { type: 'AverageValue', averageValue: 'lots' },
        },
      },
      {
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: 60 },
        },
      },
      { type: 'Resource' },
    ])
      expect(reducedHpa(hpa(metric)).hpa).not.toHaveProperty('metric');
  });

  it('defaults minReplicas to 1 and the status counts to 0', () => {
    const { hpa: reduced } = reducedHpa({
      ...metadata('h'),
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        maxReplicas: 4,
      },
    });
    expect(reduced).toMatchObject({
      minReplicas: 1,
      maxReplicas: 4,
      currentReplicas: 0,
      desiredReplicas: 0,
    });
  });
});

describe('reducedPod', () => {
  const pod = ({
    phase = 'Running',
    ready = 'True',
    annotations,
    extraMetadata = {},
  }: {
    phase?: string;
    ready?: string;
    annotations?: Record<string, string>;
    extraMetadata?: Record<string, unknown>;
  } = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      namespace: 'shop',
      resourceVersion: '9',
      labels: { app: 'web' },
      ...(annotations === undefined ? {} : { annotations }),
      ...extraMetadata,
    },
    spec: {
      containers: [
        {
          name: 'app',
          resources: { requests: { cpu: '250m', memory: '256Mi' } },
        },
        { name: 'sidecar', resources: { limits: { cpu: '1' } } },
      ],
    },
    status: {
      phase,
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: ready },
      ],
    },
  });

  it('reads a running, ready pod with its labels and requests', () => {
    expect(reducedPod(pod())).toEqual({
      metadata: { name: 'web-0', namespace: 'shop', resourceVersion: '9' },
      labels: { app: 'web' },
      ignored: false,
      pod: {
        name: 'web-0',
        pending: false,
        ready: true,
        requests: {
          app: { cpuMillicores: 250, memoryBytes: 268_435_456 },
          sidecar: {},
        },
        declared: {
          app: { cpuMillicores: 250, memoryBytes: 268_435_456 },
          sidecar: {},
        },
      },
    });
  });

  it('reads Pending, and the Ready condition only when its status is True', () => {
    expect(
      reducedPod(pod({ phase: 'Pending', ready: 'False' })).pod,
    ).toMatchObject({
      pending: true,
      ready: false,
    });
    expect(reducedPod(pod({ ready: 'Unknown' })).pod.ready).toBe(false);
    expect(reducedPod({ ...pod(), status: undefined }).pod).toMatchObject({
      pending: false,
      ready: false,
    });
  });

  it('marks a pod being deleted, or Failed, as one the HPA ignores', () => {
    expect(
      reducedPod(
        pod({ extraMetadata: { deletionTimestamp: '2026-11-27T06:00:00Z' } }),
      ).ignored,
    ).toBe(true);
    expect(reducedPod(pod({ phase: 'Failed' })).ignored).toBe(true);
    expect(reducedPod(pod({ phase: 'Succeeded' })).ignored).toBe(false);
    expect(reducedPod(pod({ phase: 'Pending' })).ignored).toBe(false);
  });

  it('reads what the user declared from tandem.dev/original-resources', () => {
    const reduced = reducedPod(
      pod({
        annotations: {
          'tandem.dev/original-resources': JSON.stringify({
            app: {
              requests: { cpu: '1', memory: '1Gi' },
              limits: { cpu: '2' },
            },
            sidecar: { requests: { cpu: '50m' }, limits: {} },
          }),
        },
      }),
    );
    expect(reduced.pod.declared).toEqual({
      app: { cpuMillicores: 1000, memoryBytes: 1_073_741_824 },
      sidecar: { cpuMillicores: 50 },
    });
    expect(reduced.pod.requests['app']).toEqual({
      cpuMillicores: 250,
      memoryBytes: 268_435_456,
    });
  });

  it.each([
    ['not JSON', '{app:'],
    ['not an object', '[1,2]'],
    [
      'a container without limits',
      JSON.stringify({ app: { requests: { cpu: '1' } } }),
    ],
    [
      'a bad quantity',
      JSON.stringify({ app: { requests: { cpu: 'lots' }, limits: {} } }),
    ],
  ])(
    'falls back to the requests when the annotation is %s',
    (_what, annotation) => {
      const reduced = reducedPod(
        pod({ annotations: { 'tandem.dev/original-resources': annotation } }),
      );
      expect(reduced.pod.declared).toEqual(reduced.pod.requests);
    },
  );

  it('skips containers without a name', () => {
    const reduced = reducedPod({
      ...metadata('p'),
      spec: {
        containers: [{ resources: { requests: { cpu: '1' } } }, 'app', null],
      },
    });
    expect(reduced.pod.requests).toEqual({});
  });
});

describe('reducedEvent', () => {
  const event = (extra: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: 'web-vpa.1',
      namespace: 'shop',
      creationTimestamp: '2026-11-27T05:00:00Z',
    },
    involvedObject: {
      kind: 'VerticalPodAutoscaler',
      name: 'web-vpa',
      namespace: 'shop',
    },
    type: 'Normal',
    reason: 'RecommendationChanged',
    message: 'app cpu 250m -> 300m',
    count: 3,
    ...extra,
  });

  it('reads a core event', () => {
    expect(
      reducedEvent(
        event({
          lastTimestamp: '2026-11-27T06:30:00Z',
          source: { component: 'tandem-recommender' },
        }),
      ),
    ).toEqual({
      metadata: {
        name: 'web-vpa.1',
        namespace: 'shop',
        resourceVersion: undefined,
      },
      event: {
        timeMs: Date.UTC(2026, 10, 27, 6, 30),
        type: 'Normal',
        reason: 'RecommendationChanged',
        message: 'app cpu 250m -> 300m',
        component: 'tandem-recommender',
        count: 3,
        object: { kind: 'VerticalPodAutoscaler', name: 'web-vpa' },
      },
    });
  });

  it('takes lastTimestamp, else eventTime, else the creation time', () => {
    const time = (extra: Record<string, unknown>) =>
      reducedEvent(event(extra)).event.timeMs;
    expect(
      time({
        lastTimestamp: '2026-11-27T06:30:00Z',
        eventTime: '2026-11-27T06:00:00.000000Z',
      }),
    ).toBe(Date.UTC(2026, 10, 27, 6, 30));
    // events.k8s.io writes a null lastTimestamp and a MicroTime eventTime.
    expect(
      time({ lastTimestamp: null, eventTime: '2026-11-27T06:10:00.123456Z' }),
    ).toBe(Date.UTC(2026, 10, 27, 6, 10, 0, 123));
    expect(time({})).toBe(Date.UTC(2026, 10, 27, 5, 0));
    expect(reducedEvent(event({ metadata: undefined })).event.timeMs).toBe(0);
  });

  it('takes reportingComponent, else source.component, and an empty one as absent', () => {
    const component = (extra: Record<string, unknown>) =>
      reducedEvent(event(extra)).event.component;
    expect(
      component({
        reportingComponent: 'tandem-updater',
        source: { component: 'kubelet' },
      }),
    ).toBe('tandem-updater');
    expect(
      component({ reportingComponent: '', source: { component: 'kubelet' } }),
    ).toBe('kubelet');
    expect(component({ source: {} })).toBe('');
  });

  it('gives an event whose timestamp does not parse a finite time', () => {
    for (const lastTimestamp of ['', 'yesterday'])
      expect(
        Number.isFinite(reducedEvent({ lastTimestamp }).event.timeMs),
      ).toBe(true);
  });

  it('defaults the type to Normal and the count to 1', () => {
    const { event: reduced } = reducedEvent({ metadata: { name: 'e' } });
    expect(reduced).toEqual({
      timeMs: 0,
      type: 'Normal',
      reason: '',
      message: '',
      component: '',
      count: 1,
      object: { kind: '', name: '' },
    });
  });
});

describe('every reducer', () => {
  const reducers = { reducedVpa, reducedHpa, reducedPod, reducedEvent };

  it.each(Object.entries(reducers))(
    '%s reads garbage as less, never throwing',
    (_name, reduce) => {
      for (const garbage of [
        null,
        undefined,
        0,
        42,
        'pod',
        true,
        [],
        [1, 2],
        {},
        { metadata: null, spec: 5, status: 'x' },
        { metadata: { name: 7, namespace: [], annotations: 'x', labels: 3 } },
        { spec: { metrics: 'x', containers: {}, targetRef: [] } },
        { spec: { metrics: [null, 1], containers: [null, 1] } },
        {
          status: {
            recommendation: { containerRecommendations: {} },
            conditions: 'x',
          },
        },
      ]) {
        const reduced = reduce(garbage);
        expect(reduced.metadata).toEqual({
          name: '',
          namespace: '',
          resourceVersion: undefined,
        });
      }
    },
  );

  it.each(Object.entries(reducers))(
    '%s never throws for any JSON value',
    (_name, reduce) => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          reduce(value);
        }),
      );
    },
  );

  it('never throws on objects shaped like their kind with values of any type', () => {
    const anyValue = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.boolean(),
      fc.array(fc.jsonValue(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
    );
    const shaped = fc.record({
      metadata: fc.record({
        name: anyValue,
        namespace: anyValue,
        annotations: fc.oneof(
          anyValue,
          fc.record({
            'tandem.dev/original-resources': anyValue,
            'tandem.dev/strategy': anyValue,
          }),
        ),
        deletionTimestamp: anyValue,
      }),
      spec: fc.record({
        targetRef: anyValue,
        scaleTargetRef: anyValue,
        containers: fc.array(
          fc.record({
            name: anyValue,
            resources: fc.record({ requests: anyValue }),
          }),
        ),
        metrics: fc.array(
          fc.record({
            type: fc.constantFrom(
              'Resource',
              'Pods',
              'Object',
              'External',
              'ContainerResource',
            ),
            resource: fc.record({ name: anyValue, target: anyValue }),
            pods: fc.record({ metric: anyValue, target: anyValue }),
            object: fc.record({ metric: anyValue, target: anyValue }),
          }),
        ),
        minReplicas: anyValue,
      }),
      status: fc.record({
        phase: anyValue,
        conditions: anyValue,
        currentMetrics: anyValue,
        recommendation: fc.record({
          containerRecommendations: fc.array(anyValue),
        }),
      }),
      lastTimestamp: anyValue,
      eventTime: anyValue,
      count: anyValue,
      source: anyValue,
      involvedObject: anyValue,
    });
    fc.assert(
      fc.property(shaped, (object) => {
        reducedVpa(object);
        reducedHpa(object);
        reducedPod(object);
        reducedEvent(object);
      }),
    );
  });
});
