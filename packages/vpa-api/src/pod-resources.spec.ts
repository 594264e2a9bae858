import fc from 'fast-check';
import { mergeLimitRangeItems } from './limit-range.js';
import {
  computeContainerResources,
  processRecommendationForPod,
} from './pod-resources.js';
import {
  formatCpuMillicores,
  formatMemoryBytes,
  parseQuantity,
} from './quantity.js';
import type {
  Container,
  ContainerResourcePolicy,
  LimitRange,
  LimitRangeItem,
  Pod,
  RecommendedContainerResources,
  ResourceList,
  VerticalPodAutoscaler,
} from './types.js';

function container(
  name: string,
  requests?: ResourceList,
  limits?: ResourceList,
): Container {
  return {
    name,
    resources: { ...(requests && { requests }), ...(limits && { limits }) },
  };
}

function podWith(...containers: Container[]): Pod {
  return {
    metadata: { name: 'pod1', namespace: 'default' },
    spec: { containers },
  };
}

function vpaWith(
  recommendations: RecommendedContainerResources[] | undefined,
  ...containerPolicies: ContainerResourcePolicy[]
): VerticalPodAutoscaler {
  return {
    metadata: { name: 'vpa', namespace: 'default' },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...(containerPolicies.length > 0 && {
        resourcePolicy: { containerPolicies },
      }),
    },
    ...(recommendations && {
      status: { recommendation: { containerRecommendations: recommendations } },
    }),
  };
}

function limitRangeOf(...limits: LimitRangeItem[]): LimitRange {
  return {
    metadata: { name: 'limits', namespace: 'default' },
    spec: { limits },
  };
}

function targetsOf(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: LimitRange[] = [],
) {
  return processRecommendationForPod(
    pod,
    vpa,
    limitRanges,
  )?.containerRecommendations.map(({ containerName, target }) => [
    containerName,
    target,
  ]);
}

const requestsOnly: ContainerResourcePolicy = {
  containerName: '*',
  controlledValues: 'RequestsOnly',
};

describe('processRecommendationForPod: policy and RequestsOnly (vector 20)', () => {
  const recommendation: RecommendedContainerResources = {
    containerName: 'ctr-name',
    target: { cpu: '20', memory: '80000' },
    upperBound: { cpu: '100', memory: '90000' },
  };
  const pod = podWith(
    container('ctr-name', undefined, { cpu: '30', memory: '70000' }),
  );

  it.each<[string, ContainerResourcePolicy[]]>([
    ['no policy', []],
    [
      'RequestsAndLimits',
      [{ containerName: '*', controlledValues: 'RequestsAndLimits' }],
    ],
  ])('%s: nothing is capped', (_name, policies) => {
    const processed = processRecommendationForPod(
      pod,
      vpaWith([recommendation], ...policies),
    );
    expect(processed).toEqual({
      containerRecommendations: [
        {
          containerName: 'ctr-name',
          target: { cpu: '20', memory: '80k' },
          upperBound: { cpu: '100', memory: '90k' },
        },
      ],
      annotations: {},
    });
  });

  it('RequestsOnly: values are capped to the container limit', () => {
    const processed = processRecommendationForPod(
      pod,
      vpaWith([recommendation], requestsOnly),
    );
    expect(processed).toEqual({
      containerRecommendations: [
        {
          containerName: 'ctr-name',
          target: { cpu: '20', memory: '70k' },
          upperBound: { cpu: '30', memory: '70k' },
        },
      ],
      annotations: { 'ctr-name': ['memory capped to container limit'] },
    });
  });

  it('RequestsOnly: limits reported in the container status win over the spec', () => {
    const resized: Pod = {
      ...pod,
      status: {
        containerStatuses: [
          {
            name: 'ctr-name',
            resources: { limits: { cpu: '2.5', memory: '60000' } },
          },
        ],
      },
    };
    const processed = processRecommendationForPod(
      resized,
      vpaWith([recommendation], requestsOnly),
    );
    expect(processed?.containerRecommendations[0]).toMatchObject({
      target: { cpu: '2500m', memory: '60k' },
      upperBound: { cpu: '2500m', memory: '60k' },
    });
    expect(processed?.annotations).toEqual({
      'ctr-name': [
        'cpu capped to container limit',
        'memory capped to container limit',
      ],
    });
  });

  it('minAllowed / maxAllowed apply to target and both bounds, annotating the target', () => {
    const processed = processRecommendationForPod(
      podWith(container('ctr-name')),
      vpaWith(
        [
          {
            containerName: 'ctr-name',
            target: { cpu: '300', memory: '50000' },
            lowerBound: { cpu: '200', memory: '43000' },
            upperBound: { cpu: '500', memory: '55000' },
          },
        ],
        {
          containerName: 'ctr-name',
          minAllowed: { cpu: '400', memory: '40000' },
          maxAllowed: { cpu: '450', memory: '45000' },
        },
      ),
    );
    expect(processed).toEqual({
      containerRecommendations: [
        {
          containerName: 'ctr-name',
          target: { cpu: '400', memory: '45k' },
          lowerBound: { cpu: '400', memory: '43k' },
          upperBound: { cpu: '450', memory: '45k' },
        },
      ],
      annotations: {
        'ctr-name': ['cpu capped to minAllowed', 'memory capped to maxAllowed'],
      },
    });
  });

  it('drops recommendations for containers the pod does not have', () => {
    const processed = processRecommendationForPod(
      podWith(container('ctr-name')),
      vpaWith([
        { containerName: 'other', target: { cpu: '100m', memory: '50000Mi' } },
      ]),
    );
    expect(processed).toEqual({
      containerRecommendations: [],
      annotations: {},
    });
  });

  it('is undefined without recommendation and policy, empty with a policy only', () => {
    const pod1 = podWith(container('c', { cpu: '1' }));
    expect(
      processRecommendationForPod(pod1, vpaWith(undefined)),
    ).toBeUndefined();
    expect(
      processRecommendationForPod(pod1, vpaWith(undefined, requestsOnly)),
    ).toEqual({
      containerRecommendations: [],
      annotations: {},
    });
  });

  it('passes uncappedTarget through and leaves its inputs alone', () => {
    const vpa = vpaWith(
      [{ ...recommendation, uncappedTarget: { cpu: '20', memory: '80000' } }],
      requestsOnly,
    );
    const before = structuredClone({ pod, vpa });
    const processed = processRecommendationForPod(pod, vpa);
    expect(processed?.containerRecommendations[0]?.uncappedTarget).toEqual({
      cpu: '20',
      memory: '80000',
    });
    expect({ pod, vpa }).toEqual(before);
  });
});

describe('processRecommendationForPod: container LimitRange', () => {
  it('keeps the limit within max and the request within min, in the limit-to-request ratio', () => {
    const pod = podWith(
      container(
        'container',
        { cpu: '1', memory: '1G' },
        { cpu: '1', memory: '1G' },
      ),
    );
    const vpa = vpaWith([
      { containerName: 'container', target: { cpu: '2', memory: '200M' } },
    ]);
    const limits = limitRangeOf({
      type: 'Container',
      max: { cpu: '1' },
      min: { memory: '500M' },
    });
    const processed = processRecommendationForPod(pod, vpa, [limits]);
    expect(processed).toEqual({
      containerRecommendations: [
        { containerName: 'container', target: { cpu: '1', memory: '500M' } },
      ],
      annotations: {
        container: [
          'cpu capped to fit Max in container LimitRange',
          'memory capped to fit Min in container LimitRange',
        ],
      },
    });
  });

  const recommendation = [
    { containerName: 'container', target: { cpu: '1', memory: '200M' } },
  ];
  const minMemory = limitRangeOf({
    type: 'Container',
    min: { memory: '500M' },
  });

  it('raises to the LimitRange min even when the ratio would allow less', () => {
    const pod = podWith(
      container(
        'container',
        { cpu: '1', memory: '50M' },
        { cpu: '1', memory: '600M' },
      ),
    );
    const processed = processRecommendationForPod(
      pod,
      vpaWith(recommendation),
      [minMemory],
    );
    expect(processed?.containerRecommendations[0]?.target).toEqual({
      cpu: '1',
      memory: '500M',
    });
    expect(processed?.annotations).toEqual({
      container: ['memory capped to fit Min in container LimitRange'],
    });
  });

  it('with RequestsOnly the container limit has the last word', () => {
    const pod = podWith(
      container(
        'container',
        { cpu: '1', memory: '50M' },
        { cpu: '1', memory: '100M' },
      ),
    );
    const processed = processRecommendationForPod(
      pod,
      vpaWith(recommendation, requestsOnly),
      [minMemory],
    );
    expect(processed?.containerRecommendations[0]?.target).toEqual({
      cpu: '1',
      memory: '100M',
    });
    expect(processed?.annotations).toEqual({
      container: [
        'memory capped to fit Min in container LimitRange',
        'memory capped to container limit',
      ],
    });
  });

  it('lets the VPA policy override the LimitRange, as it runs later', () => {
    const pod = podWith(container('container', { cpu: '1' }, { cpu: '1' }));
    const limits = limitRangeOf({ type: 'Container', max: { cpu: '500m' } });
    const vpa = vpaWith(recommendation, {
      containerName: 'container',
      minAllowed: { cpu: '800m' },
    });
    const processed = processRecommendationForPod(pod, vpa, [limits]);
    expect(processed?.containerRecommendations[0]?.target).toEqual({
      cpu: '800m',
      memory: '200M',
    });
    expect(processed?.annotations).toEqual({
      container: [
        'cpu capped to fit Max in container LimitRange',
        'cpu capped to minAllowed',
      ],
    });
  });

  it('uses the LimitRange default as the limit of a container without one', () => {
    const pod = podWith(container('container', { cpu: '500m' }));
    const limits = limitRangeOf({
      type: 'Container',
      max: { cpu: '2' },
      default: { cpu: '1' },
    });
    const vpa = vpaWith([{ containerName: 'container', target: { cpu: '3' } }]);
    expect(targetsOf(pod, vpa, [limits])).toEqual([
      ['container', { cpu: '1' }],
    ]);
  });
});

describe('processRecommendationForPod: pod LimitRange', () => {
  const podLimits = (item: Omit<LimitRangeItem, 'type'>) => [
    limitRangeOf({ type: 'Pod', ...item }),
  ];

  it('caps the target CPU to the pod max', () => {
    const pod = podWith(
      container('container1', { cpu: '1' }, { cpu: '1' }),
      container('container2', { cpu: '1' }, { cpu: '1' }),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { cpu: '1' } },
      { containerName: 'container2', target: { cpu: '1' } },
    ]);
    expect(targetsOf(pod, vpa, podLimits({ max: { cpu: '1' } }))).toEqual([
      ['container1', { cpu: '500m' }],
      ['container2', { cpu: '500m' }],
    ]);
  });

  it.each([
    ['limit = request', { memory: '1' }, {}],
    ['limit = 2 × request', { memory: '2' }, { max: { memory: '10G' } }],
  ])('raises the memory target to the pod min (%s)', (_name, limit, extra) => {
    const pod = podWith(
      container('container1', { memory: '1' }, limit),
      container('container2', { memory: '1' }, limit),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { memory: '1G' } },
      { containerName: 'container2', target: { memory: '1G' } },
    ]);
    expect(
      targetsOf(pod, vpa, podLimits({ min: { memory: '4G' }, ...extra })),
    ).toEqual([
      ['container1', { memory: '2G' }],
      ['container2', { memory: '2G' }],
    ]);
  });

  it('counts a container without recommendation at its current request', () => {
    const pod = podWith(
      container('container1', { memory: '1G' }, { memory: '2G' }),
      container('container2', { memory: '1G' }, { memory: '2G' }),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { memory: '1G' } },
    ]);
    expect(
      targetsOf(
        pod,
        vpa,
        podLimits({ min: { memory: '4G' }, max: { memory: '10G' } }),
      ),
    ).toEqual([
      ['container1', { memory: '2G' }],
      ['container2', { memory: '2G' }],
    ]);
  });

  it('ignores recommendations for containers the pod does not have', () => {
    const pod = podWith(
      container('container2', { memory: '1' }, { memory: '2' }),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { memory: '1G' } },
      { containerName: 'container2', target: { memory: '1G' } },
    ]);
    expect(
      targetsOf(
        pod,
        vpa,
        podLimits({ min: { memory: '4G' }, max: { memory: '10G' } }),
      ),
    ).toEqual([['container2', { memory: '4G' }]]);
  });

  it.each([
    ['min, rounding up', { min: { cpu: '150m' } }, '20m', '131m'],
    ['max, rounding down', { max: { cpu: '90m' } }, '11m', '78m'],
  ])('scales CPU targets to the pod %s', (_name, item, first, second) => {
    const pod = podWith(
      container('container1', { cpu: '1m' }, { cpu: '1m' }),
      container('container2', { cpu: '1m' }, { cpu: '1m' }),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { cpu: '15m' } },
      { containerName: 'container2', target: { cpu: '100m' } },
    ]);
    expect(targetsOf(pod, vpa, podLimits(item))).toEqual([
      ['container1', { cpu: first }],
      ['container2', { cpu: second }],
    ]);
  });

  it.each([
    ['max', { max: { memory: '1Gi' } }, '357913941', '715827882'],
    ['min', { min: { memory: '4Gi' } }, '1431655765', '2863311530'],
  ])(
    'splits memory to whole bytes, rounding down, when capping to the pod %s',
    (_name, item, first, second) => {
      const pod = podWith(
        container('container-1', { memory: '50M' }, { memory: '50M' }),
        container('container-2', { memory: '50M' }, { memory: '50M' }),
      );
      const vpa = vpaWith([
        { containerName: 'container-1', target: { memory: '1Gi' } },
        { containerName: 'container-2', target: { memory: '2Gi' } },
      ]);
      expect(targetsOf(pod, vpa, podLimits(item))).toEqual([
        ['container-1', { memory: first }],
        ['container-2', { memory: second }],
      ]);
    },
  );

  it.each<[string, RecommendedContainerResources[], [string, ResourceList][]]>([
    [
      'one container with recommendation and one without',
      [{ containerName: 'container1', target: { cpu: '1', memory: '200M' } }],
      [
        ['container1', { cpu: '1', memory: '400M' }],
        ['container2', { cpu: '1', memory: '100M' }],
      ],
    ],
    [
      'two containers with recommendation',
      [
        { containerName: 'container1', target: { cpu: '1', memory: '200M' } },
        { containerName: 'container2', target: { cpu: '1', memory: '200M' } },
      ],
      [
        ['container1', { cpu: '1', memory: '250M' }],
        ['container2', { cpu: '1', memory: '250M' }],
      ],
    ],
  ])('raises to the pod min: %s', (_name, recommendations, expected) => {
    const pod = podWith(
      container(
        'container1',
        { cpu: '1', memory: '50M' },
        { cpu: '1', memory: '100M' },
      ),
      container(
        'container2',
        { cpu: '1', memory: '50M' },
        { cpu: '1', memory: '100M' },
      ),
    );
    const vpa = vpaWith(recommendations, {
      containerName: '*',
      controlledValues: 'RequestsAndLimits',
    });
    const processed = processRecommendationForPod(
      pod,
      vpa,
      podLimits({ min: { memory: '500M' } }),
    );
    expect(
      processed?.containerRecommendations.map((r) => [
        r.containerName,
        r.target,
      ]),
    ).toEqual(expected);
    expect(processed?.annotations).toEqual({});
  });

  it('then RequestsOnly caps to the container limit', () => {
    const pod = podWith(
      container(
        'container',
        { cpu: '1', memory: '50M' },
        { cpu: '1', memory: '100M' },
      ),
    );
    const vpa = vpaWith(
      [{ containerName: 'container', target: { cpu: '1', memory: '200M' } }],
      requestsOnly,
    );
    const processed = processRecommendationForPod(
      pod,
      vpa,
      podLimits({ min: { memory: '500M' } }),
    );
    expect(processed?.containerRecommendations[0]?.target).toEqual({
      cpu: '1',
      memory: '100M',
    });
    expect(processed?.annotations).toEqual({
      container: ['memory capped to container limit'],
    });
  });

  it('reads requests and limits from the container status first', () => {
    const pod: Pod = {
      ...podWith(
        container(
          'container',
          { cpu: '10', memory: '1G' },
          { cpu: '10', memory: '1G' },
        ),
      ),
      status: {
        containerStatuses: [
          {
            name: 'container',
            resources: {
              requests: { cpu: '5m', memory: '50M' },
              limits: { cpu: '5m', memory: '100M' },
            },
          },
        ],
      },
    };
    const vpa = vpaWith(
      [{ containerName: 'container', target: { cpu: '1', memory: '200M' } }],
      requestsOnly,
    );
    const processed = processRecommendationForPod(
      pod,
      vpa,
      podLimits({ min: { memory: '500M', cpu: '2' } }),
    );
    expect(processed?.containerRecommendations[0]?.target).toEqual({
      cpu: '5m',
      memory: '100M',
    });
    expect(processed?.annotations).toEqual({
      container: [
        'cpu capped to container limit',
        'memory capped to container limit',
      ],
    });
  });

  it('never adds a resource the recommendation did not have (upstream would write 0)', () => {
    const pod = podWith(
      container('container1', { cpu: '1' }, { cpu: '1' }),
      container(
        'container2',
        { cpu: '1', memory: '1G' },
        { cpu: '1', memory: '1G' },
      ),
    );
    const vpa = vpaWith([
      { containerName: 'container1', target: { cpu: '1' } },
    ]);
    expect(targetsOf(pod, vpa, podLimits({ min: { memory: '4G' } }))).toEqual([
      ['container1', { cpu: '1' }],
      ['container2', { cpu: '1', memory: '4G' }],
    ]);
  });
});

describe('mergeLimitRangeItems', () => {
  it('keeps the lowest max, the highest min and the last default of the requested type', () => {
    const merged = mergeLimitRangeItems(
      [
        limitRangeOf(
          {
            type: 'Container',
            max: { cpu: '2', memory: '1Gi' },
            min: { cpu: '100m' },
            default: { cpu: '1' },
          },
          { type: 'Pod', max: { cpu: '1m' } },
        ),
        limitRangeOf({
          type: 'Container',
          max: { cpu: '1500m' },
          min: { cpu: '50m', memory: '10Mi' },
        }),
        limitRangeOf(
          { type: 'Container', default: { cpu: '700m' } },
          { type: 'Container' },
        ),
      ],
      'Container',
    );
    expect(merged).toEqual({
      type: 'Container',
      max: { cpu: '1500m', memory: '1Gi' },
      min: { cpu: '100m', memory: '10Mi' },
      default: { cpu: '700m' },
    });
  });

  it('is undefined when no item of the type constrains anything', () => {
    expect(
      mergeLimitRangeItems(
        [
          limitRangeOf({ type: 'Pod' }),
          limitRangeOf({ type: 'Container', max: {} }),
        ],
        'Pod',
      ),
    ).toBeUndefined();
  });
});

describe('computeContainerResources', () => {
  const recommend = (
    target: ResourceList,
    ...policies: ContainerResourcePolicy[]
  ) => vpaWith([{ containerName: 'app', target }], ...policies);

  it('vector 19: scales limits in proportion to the new requests', () => {
    const pod = podWith(
      container(
        'app',
        { cpu: '1', memory: '150' },
        { cpu: '2', memory: '200' },
      ),
    );
    expect(
      computeContainerResources(pod, recommend({ cpu: '10', memory: '100' })),
    ).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '10', memory: '100' },
        limits: { cpu: '20', memory: '133' },
        annotations: [],
      },
    ]);
  });

  it('vector 19: takes the container LimitRange default when the container has no limit', () => {
    const pod = podWith(container('app', { cpu: '1' }));
    const limits = limitRangeOf({ type: 'Container', default: { cpu: '2' } });
    expect(
      computeContainerResources(pod, recommend({ cpu: '10' }), [limits]),
    ).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '10' },
        limits: { cpu: '20' },
        annotations: ['memory: limit NOT set since originalLimit is nil or 0'],
      },
    ]);
  });

  it('vector 19: leaves limits alone, silently, when no resource had one', () => {
    const pod = podWith(container('app', { cpu: '1', memory: '1Gi' }));
    expect(
      computeContainerResources(pod, recommend({ cpu: '10', memory: '2Gi' })),
    ).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '10', memory: '2Gi' },
        annotations: [],
      },
    ]);
  });

  it('vector 19: overflowing limits are capped to MaxInt64 with an annotation', () => {
    const pod = podWith(container('app', { cpu: '1m' }, { cpu: '10G' }));
    expect(computeContainerResources(pod, recommend({ cpu: '10G' }))).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '10G' },
        limits: { cpu: '9223372036854775807m' },
        annotations: [
          'cpu: failed to keep limit to request ratio; capping limit to int64',
          'memory: limit NOT set since originalLimit is nil or 0',
        ],
      },
    ]);
  });

  it('vector 19: a limit without a request, or equal to it, becomes the new request', () => {
    const pod = podWith(
      container('app', { memory: '1Gi' }, { cpu: '2', memory: '1Gi' }),
    );
    expect(
      computeContainerResources(pod, recommend({ cpu: '10', memory: '3Gi' }))[0]
        ?.limits,
    ).toEqual({
      cpu: '10',
      memory: '3Gi',
    });
  });

  it('puts capping annotations before limit annotations', () => {
    const pod = podWith(container('app', { cpu: '1' }, { cpu: '2' }));
    const vpa = recommend(
      { cpu: '10' },
      { containerName: 'app', maxAllowed: { cpu: '4' } },
    );
    expect(computeContainerResources(pod, vpa)).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '4' },
        limits: { cpu: '8' },
        annotations: [
          'cpu capped to maxAllowed',
          'memory: limit NOT set since originalLimit is nil or 0',
        ],
      },
    ]);
  });

  it('vector 20: RequestsOnly writes requests capped to the limit and no limits', () => {
    const pod = podWith(
      container(
        'app',
        { cpu: '10', memory: '10000' },
        { cpu: '30', memory: '70000' },
      ),
    );
    expect(
      computeContainerResources(
        pod,
        recommend({ cpu: '20', memory: '80000' }, requestsOnly),
      ),
    ).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '20', memory: '70k' },
        annotations: ['memory capped to container limit'],
      },
    ]);
  });

  it('lists containers in pod order and skips those without a recommendation', () => {
    const pod = podWith(container('a'), container('b'), container('c'));
    const vpa = vpaWith([
      { containerName: 'c', target: { cpu: '1' } },
      { containerName: 'a', target: { cpu: '2' } },
    ]);
    expect(
      computeContainerResources(pod, vpa).map((c) => c.containerName),
    ).toEqual(['a', 'c']);
  });

  it('returns nothing when the VPA has no recommendation yet', () => {
    const pod = podWith(container('app', { cpu: '1' }, { cpu: '2' }));
    const limits = limitRangeOf({ type: 'Pod', min: { cpu: '4' } });
    expect(
      computeContainerResources(pod, vpaWith(undefined, requestsOnly), [
        limits,
      ]),
    ).toEqual([]);
  });

  it('drops a resource with an empty name', () => {
    const pod = podWith(container('app'));
    expect(
      computeContainerResources(pod, recommend({ cpu: '1', '': '1' }))[0]
        ?.requests,
    ).toEqual({ cpu: '1' });
  });
});

describe('computeContainerResources properties', () => {
  const millicores = fc.integer({ min: 1, max: 1_000_000 });
  const bytes = fc.integer({ min: 1, max: 2 ** 40 });

  it('keeps the limit-to-request ratio within one unit (CPU milli, memory bytes)', () => {
    fc.assert(
      fc.property(
        millicores,
        millicores,
        millicores,
        bytes,
        bytes,
        bytes,
        (cpuReq, cpuExtra, cpuNew, memReq, memExtra, memNew) => {
          const cpuLimit = cpuReq + cpuExtra;
          const memLimit = memReq + memExtra;
          const pod = podWith(
            container(
              'app',
              {
                cpu: formatCpuMillicores(cpuReq),
                memory: formatMemoryBytes(memReq),
              },
              {
                cpu: formatCpuMillicores(cpuLimit),
                memory: formatMemoryBytes(memLimit),
              },
            ),
          );
          const vpa = vpaWith([
            {
              containerName: 'app',
              target: {
                cpu: formatCpuMillicores(cpuNew),
                memory: formatMemoryBytes(memNew),
              },
            },
          ]);
          const [result] = computeContainerResources(pod, vpa);
          const newCpuLimit = parseQuantity(
            result?.limits?.['cpu'] ?? '0',
          ).milliValue();
          const newMemLimit = parseQuantity(
            result?.limits?.['memory'] ?? '0',
          ).value();
          expectWithinOneUnit(
            newCpuLimit,
            BigInt(cpuLimit),
            BigInt(cpuNew),
            BigInt(cpuReq),
          );
          expectWithinOneUnit(
            newMemLimit,
            BigInt(memLimit),
            BigInt(memNew),
            BigInt(memReq),
          );
        },
      ),
    );
  });

  it('RequestsOnly never writes limits, nor requests above the current limits', () => {
    const resources = fc.record(
      {
        cpu: millicores.map(formatCpuMillicores),
        memory: bytes.map(formatMemoryBytes),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        resources,
        resources,
        resources,
        (requests, limits, target) => {
          const pod = podWith(container('app', requests, limits));
          const vpa = vpaWith([{ containerName: 'app', target }], requestsOnly);
          for (const result of computeContainerResources(pod, vpa)) {
            expect(result.limits).toBeUndefined();
            for (const [resource, limit] of Object.entries(limits)) {
              const request = result.requests[resource];
              if (request !== undefined) {
                expect(
                  parseQuantity(request).cmp(parseQuantity(limit)),
                ).toBeLessThanOrEqual(0);
              }
            }
          }
        },
      ),
    );
  });
});

/** limit ≤ originalLimit × request / originalRequest < limit + 1, or MaxInt64 when that overflows. */
function expectWithinOneUnit(
  limit: bigint,
  originalLimit: bigint,
  request: bigint,
  originalRequest: bigint,
) {
  const exact = originalLimit * request;
  if (exact / originalRequest > 2n ** 63n - 1n) {
    expect(limit).toBe(2n ** 63n - 1n);
    return;
  }
  expect(limit * originalRequest).toBeLessThanOrEqual(exact);
  expect((limit + 1n) * originalRequest).toBeGreaterThan(exact);
}

describe('processing kept per pod object', () => {
  const cpu = fc.integer({ min: 1, max: 4000 }).map(formatCpuMillicores);
  const resources = fc.record({ cpu }, { requiredKeys: [] });
  const pod = fc
    .tuple(resources, resources, resources)
    .map(([app, side, limits]) =>
      podWith(container('app', app, limits), container('side', side)),
    );
  const vpa = fc
    .tuple(
      fc.subarray(['app', 'side', 'gone']),
      resources,
      fc.constantFrom('RequestsOnly', 'RequestsAndLimits'),
      fc.option(resources, { nil: undefined }),
    )
    .map(([names, target, controlledValues, maxAllowed]) =>
      vpaWith(
        names.map((containerName) => ({ containerName, target })),
        {
          containerName: '*',
          controlledValues,
          ...(maxAllowed && { maxAllowed }),
        } as ContainerResourcePolicy,
      ),
    );
  const limitRanges = fc
    .subarray([
      limitRangeOf({ type: 'Pod', min: { cpu: '1' } }),
      limitRangeOf({ type: 'Container', max: { cpu: '2' } }),
    ])
    .map((ranges) => [ranges]);

  it('answers every question in turn as fresh objects do, for any pods, VPAs and LimitRanges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()), {
          minLength: 1,
        }),
        fc.tuple(pod, pod),
        fc.tuple(vpa, vpa),
        fc.tuple(limitRanges, limitRanges),
        (asked, pods, vpas, ranges) => {
          for (const [p, v, r] of asked) {
            const inputs = [
              p ? pods[0] : pods[1],
              v ? vpas[0] : vpas[1],
              (r ? ranges[0] : ranges[1])[0],
            ] as const;
            const fresh = () =>
              structuredClone(inputs) as unknown as typeof inputs;
            expect(processRecommendationForPod(...inputs)).toEqual(
              processRecommendationForPod(...fresh()),
            );
            expect(computeContainerResources(...inputs)).toEqual(
              computeContainerResources(...fresh()),
            );
          }
        },
      ),
    );
  });
});
