import fc from 'fast-check';
import type { FeatureGates } from './types.js';
import {
  validateVerticalPodAutoscaler,
  type ValidationResult,
} from './validation.js';

type Json = Record<string, unknown>;

const ALL_GATES: FeatureGates = {
  InPlace: true,
  CPUStartupBoost: true,
  PerVPAConfig: true,
};

function vpaWithSpec(spec: Json): Json {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...spec,
    },
  };
}

function withPolicy(policy: Json): Json {
  return vpaWithSpec({
    resourcePolicy: {
      containerPolicies: [{ containerName: 'app', ...policy }],
    },
  });
}

function validate(
  vpa: unknown,
  old?: unknown,
  gates: FeatureGates = {},
): ValidationResult {
  return validateVerticalPodAutoscaler(vpa, old, gates);
}

/** Errors as `path: message`, the way kubectl prints them. */
function errorsOf(
  vpa: unknown,
  old?: unknown,
  gates: FeatureGates = {},
): string[] {
  return validate(vpa, old, gates).errors.map(
    (error) => `${error.path}: ${error.message}`,
  );
}

const policyPath = 'spec.resourcePolicy.containerPolicies[0]';

describe('validateVerticalPodAutoscaler: structure', () => {
  it('accepts a complete, valid object without warnings', () => {
    const vpa = vpaWithSpec({
      updatePolicy: {
        updateMode: 'InPlaceOrRecreate',
        minReplicas: 1,
        evictAfterOOMSeconds: 300,
        evictionRequirements: [
          {
            resources: ['cpu', 'memory'],
            changeRequirement: 'TargetHigherThanRequests',
          },
        ],
      },
      resourcePolicy: {
        containerPolicies: [
          {
            containerName: '*',
            mode: 'Auto',
            minAllowed: { cpu: '100m', memory: '50Mi' },
            maxAllowed: { cpu: 2, memory: '2Gi' },
            controlledResources: ['cpu', 'memory'],
            controlledValues: 'RequestsOnly',
            oomBumpUpRatio: '1.5',
            oomMinBumpUp: '100Mi',
            memoryAggregationIntervalSeconds: 3600,
            memoryAggregationIntervalCount: 8,
            startupBoost: {
              cpu: { type: 'Quantity', quantity: '500m', durationSeconds: 30 },
            },
          },
          {
            containerName: 'sidecar',
            mode: 'Off',
            controlledValues: 'RequestsOnly',
          },
        ],
      },
      recommenders: [{ name: 'custom' }],
      startupBoost: { cpu: { type: 'Factor', factor: 2 } },
    });
    expect(validate(vpa, undefined, ALL_GATES)).toEqual({
      errors: [],
      warnings: [],
    });
  });

  it.each([null, 'vpa', 3, []])('rejects a non-object VPA (%j)', (vpa) => {
    expect(validate(vpa).errors).toEqual([
      expect.objectContaining({ path: '', type: 'FieldValueTypeInvalid' }),
    ]);
  });

  it('requires spec to be an object', () => {
    expect(errorsOf({ metadata: {} })).toEqual(['spec: Required value']);
    expect(errorsOf({ spec: 'x' })).toEqual([
      'spec: Invalid value: "x": must be an object',
    ]);
  });

  it('requires targetRef with kind and name', () => {
    expect(errorsOf({ spec: {} })).toEqual([
      "spec.targetRef: Required value: If you're using v1beta1 version of the API, please migrate to v1",
    ]);
    expect(errorsOf({ spec: { targetRef: {} } })).toEqual([
      'spec.targetRef.kind: Required value',
      'spec.targetRef.name: Required value',
    ]);
    expect(
      errorsOf({ spec: { targetRef: { kind: 'Deployment', name: '' } } }),
    ).toEqual(['spec.targetRef.name: Required value']);
    expect(
      errorsOf({
        spec: { targetRef: { kind: 1, name: 'web', apiVersion: [] } },
      }),
    ).toEqual([
      'spec.targetRef.kind: Invalid value: 1: must be a string',
      'spec.targetRef.apiVersion: Invalid value: []: must be a string',
    ]);
    expect(errorsOf({ spec: { targetRef: 'web' } })).toEqual([
      'spec.targetRef: Invalid value: "web": must be an object',
    ]);
    expect(
      errorsOf({ spec: { targetRef: { kind: 'Deployment', name: 'web' } } }),
    ).toEqual([]);
  });

  it('reports errors with a type the webhook can use as the StatusCause reason', () => {
    expect(validate({ spec: {} }).errors[0]).toEqual({
      path: 'spec.targetRef',
      type: 'FieldValueRequired',
      message:
        "Required value: If you're using v1beta1 version of the API, please migrate to v1",
    });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (vpa, old) => {
        const result = validate(vpa, old, ALL_GATES);
        expect(Array.isArray(result.errors)).toBe(true);
      }),
    );
  });

  it('never throws when any field of a valid object holds any JSON value', () => {
    const fields = [
      ['targetRef'],
      ['updatePolicy'],
      ['updatePolicy', 'updateMode'],
      ['updatePolicy', 'minReplicas'],
      ['updatePolicy', 'evictionRequirements'],
      ['resourcePolicy'],
      ['resourcePolicy', 'containerPolicies'],
      ['resourcePolicy', 'containerPolicies', 0],
      ['resourcePolicy', 'containerPolicies', 0, 'minAllowed'],
      ['resourcePolicy', 'containerPolicies', 0, 'minAllowed', 'cpu'],
      ['resourcePolicy', 'containerPolicies', 0, 'controlledResources'],
      ['resourcePolicy', 'containerPolicies', 0, 'oomBumpUpRatio'],
      ['resourcePolicy', 'containerPolicies', 0, 'startupBoost'],
      ['resourcePolicy', 'containerPolicies', 0, 'startupBoost', 'cpu'],
      ['startupBoost', 'cpu', 'quantity'],
      ['recommenders'],
      ['recommenders', 0],
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.jsonValue(),
        fc.boolean(),
        (field, value, gates) => {
          const vpa = vpaWithSpec({
            updatePolicy: { updateMode: 'Auto' },
            resourcePolicy: {
              containerPolicies: [
                {
                  containerName: 'app',
                  minAllowed: { cpu: '1' },
                  startupBoost: { cpu: {} },
                },
              ],
            },
            startupBoost: { cpu: { type: 'Quantity', quantity: '1' } },
            recommenders: [{ name: 'r' }],
          });
          let node = vpa['spec'] as Record<string | number, unknown>;
          for (const step of field.slice(0, -1))
            node = node[step] as Record<string | number, unknown>;
          node[field[field.length - 1] as string | number] = value;
          expect(() =>
            validate(vpa, vpa, gates ? ALL_GATES : {}),
          ).not.toThrow();
        },
      ),
    );
  });
});

describe('validateVerticalPodAutoscaler: updatePolicy', () => {
  const withUpdatePolicy = (updatePolicy: unknown) =>
    vpaWithSpec({ updatePolicy });

  it.each(['Off', 'Initial', 'Recreate', 'InPlaceOrRecreate'])(
    'accepts updateMode %s',
    (updateMode) => {
      expect(validate(withUpdatePolicy({ updateMode }))).toEqual({
        errors: [],
        warnings: [],
      });
    },
  );

  it('requires updateMode once updatePolicy is given', () => {
    expect(errorsOf(withUpdatePolicy({ minReplicas: 2 }))).toEqual([
      'spec.updatePolicy.updateMode: Required value: updateMode is required if UpdatePolicy is used',
    ]);
    expect(errorsOf(withUpdatePolicy({}))).toHaveLength(1);
    expect(errorsOf(withUpdatePolicy('Auto'))).toEqual([
      'spec.updatePolicy: Invalid value: "Auto": must be an object',
    ]);
  });

  it('rejects unknown update modes, listing the supported ones', () => {
    expect(errorsOf(withUpdatePolicy({ updateMode: 'Sometimes' }))).toEqual([
      'spec.updatePolicy.updateMode: Unsupported value: "Sometimes": supported values: "InPlace", "InPlaceOrRecreate", "Initial", "Off", "Recreate"',
    ]);
    expect(errorsOf(withUpdatePolicy({ updateMode: 3 }))).toEqual([
      'spec.updatePolicy.updateMode: Invalid value: 3: must be a string',
    ]);
  });

  it('accepts the deprecated Auto mode with a warning', () => {
    expect(validate(withUpdatePolicy({ updateMode: 'Auto' }))).toEqual({
      errors: [],
      warnings: [
        'spec.updatePolicy: "Auto" mode is deprecated and will be removed in a future API version. Use explicit update modes like: [InPlace InPlaceOrRecreate Initial Off Recreate]. See https://github.com/kubernetes/autoscaler/issues/8424 for more details.',
      ],
    });
  });

  it('allows InPlace only behind its gate, or when the stored object already uses it', () => {
    const inPlace = withUpdatePolicy({ updateMode: 'InPlace' });
    expect(errorsOf(inPlace)).toEqual([
      'spec.updatePolicy.updateMode: Forbidden: in order to use UpdateMode InPlace, you must enable feature gate InPlace in the admission-controller args',
    ]);
    expect(errorsOf(inPlace, undefined, { InPlace: true })).toEqual([]);
    expect(errorsOf(inPlace, inPlace)).toEqual([]);
    expect(
      errorsOf(inPlace, withUpdatePolicy({ updateMode: 'Recreate' })),
    ).toHaveLength(1);
  });

  it('requires a positive 32-bit minReplicas', () => {
    const minReplicas = (value: unknown) =>
      errorsOf(
        withUpdatePolicy({ updateMode: 'Recreate', minReplicas: value }),
      );
    expect(minReplicas(1)).toEqual([]);
    expect(minReplicas(0)).toEqual([
      'spec.updatePolicy.minReplicas: Invalid value: 0: minReplicas has to be positive',
    ]);
    expect(minReplicas(-3)).toEqual([
      'spec.updatePolicy.minReplicas: Invalid value: -3: minReplicas has to be positive',
    ]);
    expect(minReplicas(1.5)).toEqual([
      'spec.updatePolicy.minReplicas: Invalid value: 1.5: must be an integer',
    ]);
    expect(minReplicas('2')).toEqual([
      'spec.updatePolicy.minReplicas: Invalid value: "2": must be an integer',
    ]);
    expect(minReplicas(2 ** 31)).toEqual([
      'spec.updatePolicy.minReplicas: Invalid value: 2147483648: must be a 32-bit integer',
    ]);
  });

  describe('evictAfterOOMSeconds (PerVPAConfig)', () => {
    const oom = (value: unknown) =>
      withUpdatePolicy({ updateMode: 'Recreate', evictAfterOOMSeconds: value });

    it('is forbidden without the gate', () => {
      expect(errorsOf(oom(60))).toEqual([
        'spec.updatePolicy.evictAfterOOMSeconds: Forbidden: not supported when feature flag PerVPAConfig is disabled',
      ]);
    });

    it('must be at least 1 with the gate', () => {
      expect(errorsOf(oom(1), undefined, { PerVPAConfig: true })).toEqual([]);
      expect(errorsOf(oom(0), undefined, { PerVPAConfig: true })).toEqual([
        'spec.updatePolicy.evictAfterOOMSeconds: Invalid value: 0: must be greater than or equal to 1',
      ]);
    });

    it('stays allowed when the stored object uses any PerVPAConfig field', () => {
      expect(errorsOf(oom(60), oom(30))).toEqual([]);
      expect(errorsOf(oom(60), withPolicy({ oomBumpUpRatio: '2' }))).toEqual(
        [],
      );
      expect(errorsOf(oom(0), oom(30))).toEqual([
        'spec.updatePolicy.evictAfterOOMSeconds: Invalid value: 0: must be greater than or equal to 1',
      ]);
    });
  });

  it('checks evictionRequirements against the schema', () => {
    const requirements = (value: unknown) =>
      errorsOf(
        withUpdatePolicy({
          updateMode: 'Recreate',
          evictionRequirements: value,
        }),
      );
    expect(
      requirements([
        { resources: ['cpu'], changeRequirement: 'TargetLowerThanRequests' },
      ]),
    ).toEqual([]);
    expect(
      requirements([{ resources: ['cpu'], changeRequirement: 'Sideways' }]),
    ).toEqual([
      'spec.updatePolicy.evictionRequirements[0].changeRequirement: Unsupported value: "Sideways": supported values: "TargetHigherThanRequests", "TargetLowerThanRequests"',
    ]);
    expect(requirements([{}])).toEqual([
      'spec.updatePolicy.evictionRequirements[0].resources: Required value',
      'spec.updatePolicy.evictionRequirements[0].changeRequirement: Required value',
    ]);
    expect(
      requirements([
        { resources: 'cpu', changeRequirement: 'TargetLowerThanRequests' },
      ]),
    ).toEqual([
      'spec.updatePolicy.evictionRequirements[0].resources: Invalid value: "cpu": must be a list',
    ]);
    expect(requirements({})).toEqual([
      'spec.updatePolicy.evictionRequirements: Invalid value: {}: must be a list',
    ]);
  });
});

describe('validateVerticalPodAutoscaler: container policies', () => {
  it('requires a list of objects, each with a containerName', () => {
    expect(
      errorsOf(vpaWithSpec({ resourcePolicy: { containerPolicies: {} } })),
    ).toEqual([
      'spec.resourcePolicy.containerPolicies: Invalid value: {}: must be a list',
    ]);
    expect(
      errorsOf(vpaWithSpec({ resourcePolicy: { containerPolicies: ['app'] } })),
    ).toEqual([`${policyPath}: Invalid value: "app": must be an object`]);
    expect(
      errorsOf(
        vpaWithSpec({
          resourcePolicy: { containerPolicies: [{ mode: 'Off' }] },
        }),
      ),
    ).toEqual([`${policyPath}.containerName: Required value`]);
    expect(errorsOf(vpaWithSpec({ resourcePolicy: 'all' }))).toEqual([
      'spec.resourcePolicy: Invalid value: "all": must be an object',
    ]);
    expect(errorsOf(vpaWithSpec({ resourcePolicy: {} }))).toEqual([]);
  });

  it('accepts modes Auto and Off only', () => {
    expect(errorsOf(withPolicy({ mode: 'Auto' }))).toEqual([]);
    expect(errorsOf(withPolicy({ mode: 'Off' }))).toEqual([]);
    expect(errorsOf(withPolicy({ mode: 'On' }))).toEqual([
      `${policyPath}.mode: Unsupported value: "On": supported values: "Auto", "Off"`,
    ]);
  });

  it('accepts controlledValues RequestsAndLimits and RequestsOnly only', () => {
    expect(
      errorsOf(withPolicy({ controlledValues: 'RequestsAndLimits' })),
    ).toEqual([]);
    expect(errorsOf(withPolicy({ controlledValues: 'LimitsOnly' }))).toEqual([
      `${policyPath}.controlledValues: Unsupported value: "LimitsOnly": supported values: "RequestsAndLimits", "RequestsOnly"`,
    ]);
  });

  it('forbids mode Off together with controlledValues RequestsAndLimits', () => {
    expect(
      errorsOf(
        withPolicy({ mode: 'Off', controlledValues: 'RequestsAndLimits' }),
      ),
    ).toEqual([
      `${policyPath}.controlledValues: Forbidden: controlledValues shouldn't be specified if container scaling mode is off`,
    ]);
    expect(
      errorsOf(withPolicy({ mode: 'Off', controlledValues: 'RequestsOnly' })),
    ).toEqual([]);
    expect(
      errorsOf(
        withPolicy({ mode: 'Auto', controlledValues: 'RequestsAndLimits' }),
      ),
    ).toEqual([]);
    expect(errorsOf(withPolicy({ mode: 'Off' }))).toEqual([]);
  });

  describe.each(['minAllowed', 'maxAllowed'])('%s', (field) => {
    const bounds = (list: unknown) => errorsOf(withPolicy({ [field]: list }));

    it('needs whole millicores of CPU', () => {
      expect(bounds({ cpu: '100m' })).toEqual([]);
      expect(bounds({ cpu: 2 })).toEqual([]);
      expect(bounds({ cpu: '1.5m' })).toEqual([
        `${policyPath}.${field}.cpu: Invalid value: "1500u": must be a whole number of milli CPUs`,
      ]);
      expect(bounds({ cpu: 0.0005 })).toHaveLength(1);
    });

    it('needs whole bytes of memory', () => {
      expect(bounds({ memory: '1Gi' })).toEqual([]);
      expect(bounds({ memory: '0.5Ki' })).toEqual([]);
      expect(bounds({ memory: '1.5' })).toEqual([
        `${policyPath}.${field}.memory: Invalid value: "1500m": must be a whole number of bytes`,
      ]);
    });

    it('reports unparseable quantities and wrong types as field errors', () => {
      expect(bounds({ cpu: 'lots' })).toEqual([
        `${policyPath}.${field}.cpu: Invalid value: "lots": invalid quantity "lots": expected a number such as 1, 1.5 or .5 before any suffix`,
      ]);
      expect(bounds({ memory: { value: 1 } })).toEqual([
        `${policyPath}.${field}.memory: Invalid value: {"value":1}: must be a quantity string such as "500m" or "1Gi"`,
      ]);
      expect(bounds(['cpu'])).toEqual([
        `${policyPath}.${field}: Invalid value: ["cpu"]: must be an object`,
      ]);
    });

    it('checks only the syntax of other resources, naming them unambiguously', () => {
      expect(bounds({ 'nvidia.com/gpu': '1.5m' })).toEqual([]);
      expect(bounds({ 'nvidia.com/gpu': '1.5x' })).toEqual([
        `${policyPath}.${field}[nvidia.com/gpu]: Invalid value: "1.5x": invalid quantity "1.5x": unknown suffix "x" (expected one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei, or an exponent such as e3)`,
      ]);
    });
  });

  it('requires maxAllowed ≥ minAllowed per resource', () => {
    expect(
      errorsOf(
        withPolicy({
          minAllowed: { cpu: '200m', memory: '1Gi' },
          maxAllowed: { cpu: '100m', memory: '1Gi' },
        }),
      ),
    ).toEqual([
      `${policyPath}.maxAllowed.cpu: Invalid value: "100m": max resource for cpu is lower than min of "200m"`,
    ]);
    expect(
      errorsOf(
        withPolicy({
          minAllowed: { cpu: '1' },
          maxAllowed: { cpu: '1000m', memory: '1' },
        }),
      ),
    ).toEqual([]);
    expect(
      errorsOf(
        withPolicy({
          minAllowed: { memory: '1Gi' },
          maxAllowed: { memory: '1G' },
        }),
      ),
    ).toHaveLength(1);
  });

  it('controls cpu and memory only, tolerating other names the stored object already had', () => {
    const resources = (list: unknown) =>
      withPolicy({ controlledResources: list });
    expect(validate(resources(['cpu', 'memory']))).toEqual({
      errors: [],
      warnings: [],
    });
    expect(validate(resources([]))).toEqual({ errors: [], warnings: [] });
    expect(errorsOf(resources(['cpu', 'nvidia.com/gpu']))).toEqual([
      `${policyPath}.controlledResources[1]: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"`,
    ]);
    expect(
      validate(
        resources(['cpu', 'nvidia.com/gpu']),
        resources(['nvidia.com/gpu']),
      ),
    ).toEqual({
      errors: [],
      warnings: [
        `${policyPath}.controlledResources[1]: unsupported value "nvidia.com/gpu" is allowed only because it is present in the existing VPA object; supported values: "cpu", "memory"`,
      ],
    });
    expect(errorsOf(resources('cpu'))).toEqual([
      `${policyPath}.controlledResources: Invalid value: "cpu": must be a list`,
    ]);
  });

  describe('PerVPAConfig fields', () => {
    const gated = [
      'oomBumpUpRatio',
      'oomMinBumpUp',
      'memoryAggregationIntervalSeconds',
      'memoryAggregationIntervalCount',
    ];
    const valid: Json = {
      oomBumpUpRatio: '1.2',
      oomMinBumpUp: '100Mi',
      memoryAggregationIntervalSeconds: 600,
      memoryAggregationIntervalCount: 4,
    };

    it.each(gated)('%s is forbidden without the gate', (field) => {
      expect(errorsOf(withPolicy({ [field]: valid[field] }))).toEqual([
        `${policyPath}.${field}: Forbidden: not supported when feature flag PerVPAConfig is disabled`,
      ]);
    });

    it.each(gated)(
      '%s stays allowed when the stored object uses any PerVPAConfig field',
      (field) => {
        const old = vpaWithSpec({
          updatePolicy: { updateMode: 'Recreate', evictAfterOOMSeconds: 60 },
        });
        expect(errorsOf(withPolicy({ [field]: valid[field] }), old)).toEqual(
          [],
        );
      },
    );

    const withGate = (policy: Json) =>
      errorsOf(withPolicy(policy), undefined, { PerVPAConfig: true });

    it('accepts valid values with the gate', () => {
      expect(withGate(valid)).toEqual([]);
    });

    it('needs oomBumpUpRatio ≥ 1, compared in millis like upstream', () => {
      expect(withGate({ oomBumpUpRatio: '0.5' })).toEqual([
        `${policyPath}.oomBumpUpRatio: Invalid value: 0.5: must be greater than or equal to 1.0`,
      ]);
      expect(withGate({ oomBumpUpRatio: 1 })).toEqual([]);
      expect(withGate({ oomBumpUpRatio: '0.9999' })).toEqual([]);
      expect(withGate({ oomBumpUpRatio: 'twice' })).toHaveLength(1);
    });

    it('needs oomMinBumpUp ≥ 0', () => {
      expect(withGate({ oomMinBumpUp: '-1Mi' })).toEqual([
        `${policyPath}.oomMinBumpUp: Invalid value: -1048576: must be greater than or equal to 0`,
      ]);
      expect(withGate({ oomMinBumpUp: '0' })).toEqual([]);
    });

    it.each([
      'memoryAggregationIntervalSeconds',
      'memoryAggregationIntervalCount',
    ])('needs %s ≥ 1', (field) => {
      expect(withGate({ [field]: 0 })).toEqual([
        `${policyPath}.${field}: Invalid value: 0: must be greater than or equal to 1`,
      ]);
      expect(withGate({ [field]: 1 })).toEqual([]);
      expect(withGate({ [field]: '1' })).toEqual([
        `${policyPath}.${field}: Invalid value: "1": must be an integer`,
      ]);
    });
  });
});

describe('validateVerticalPodAutoscaler: startupBoost', () => {
  const cases: [string, (boost: unknown) => Json, string][] = [
    [
      'pod level',
      (startupBoost) => vpaWithSpec({ startupBoost }),
      'spec.startupBoost',
    ],
    [
      'container level',
      (startupBoost) => withPolicy({ startupBoost }),
      `${policyPath}.startupBoost`,
    ],
  ];

  describe.each(cases)('%s', (_name, build, path) => {
    const withGate = (boost: unknown) =>
      errorsOf(build(boost), undefined, { CPUStartupBoost: true });

    it('is forbidden without the CPUStartupBoost gate', () => {
      expect(errorsOf(build({ cpu: { type: 'Factor', factor: 2 } }))).toEqual([
        `${path}: Forbidden: in order to use startupBoost, you must enable feature gate CPUStartupBoost in the admission-controller args`,
      ]);
    });

    it('stays allowed when the stored object already boosts', () => {
      const old = withPolicy({ startupBoost: {} });
      expect(
        errorsOf(build({ cpu: { type: 'Factor', factor: 2 } }), old),
      ).toEqual([]);
      const oldPodLevel = vpaWithSpec({
        startupBoost: { cpu: { type: 'Factor', factor: 3 } },
      });
      expect(
        errorsOf(build({ cpu: { type: 'Factor', factor: 2 } }), oldPodLevel),
      ).toEqual([]);
    });

    it('accepts a boost without cpu, a Factor ≥ 1 and a whole-millicore Quantity', () => {
      expect(withGate({})).toEqual([]);
      expect(
        withGate({ cpu: { type: 'Factor', factor: 1, durationSeconds: 10 } }),
      ).toEqual([]);
      expect(withGate({ cpu: { type: 'Quantity', quantity: '250m' } })).toEqual(
        [],
      );
    });

    it('requires a type of Factor or Quantity', () => {
      expect(withGate({ cpu: {} })).toEqual([
        `${path}.cpu.type: Required value: must be either Factor or Quantity`,
      ]);
      expect(withGate({ cpu: { type: 'Double' } })).toEqual([
        `${path}.cpu.type: Unsupported value: "Double": supported values: "Factor", "Quantity"`,
      ]);
    });

    it('requires factor ≥ 1 for Factor', () => {
      expect(withGate({ cpu: { type: 'Factor' } })).toEqual([
        `${path}.cpu.factor: Required value: required when type is Factor`,
      ]);
      expect(withGate({ cpu: { type: 'Factor', factor: 0 } })).toEqual([
        `${path}.cpu.factor: Invalid value: 0: must be >= 1 for type Factor`,
      ]);
    });

    it('requires a whole-millicore quantity for Quantity', () => {
      expect(withGate({ cpu: { type: 'Quantity' } })).toEqual([
        `${path}.cpu.quantity: Required value: required when type is Quantity`,
      ]);
      expect(withGate({ cpu: { type: 'Quantity', quantity: '0.5m' } })).toEqual(
        [
          `${path}.cpu.quantity: Invalid value: "500u": must be a whole number of milli CPUs`,
        ],
      );
    });

    it('checks the types of its fields', () => {
      expect(
        withGate({
          cpu: { type: 'Factor', factor: 2, durationSeconds: 'soon' },
        }),
      ).toEqual([
        `${path}.cpu.durationSeconds: Invalid value: "soon": must be an integer`,
      ]);
      expect(withGate('fast')).toEqual([
        `${path}: Invalid value: "fast": must be an object`,
      ]);
    });
  });
});

describe('validateVerticalPodAutoscaler: recommenders', () => {
  it('allows at most one recommender, each with a name', () => {
    const recommenders = (value: unknown) =>
      errorsOf(vpaWithSpec({ recommenders: value }));
    expect(recommenders([])).toEqual([]);
    expect(recommenders([{ name: 'default' }])).toEqual([]);
    expect(recommenders([{ name: 'a' }, { name: 'b' }])).toEqual([
      'spec.recommenders: Too many: 2: must have at most 1 item',
    ]);
    expect(recommenders([{}])).toEqual([
      'spec.recommenders[0].name: Required value',
    ]);
    expect(recommenders('default')).toEqual([
      'spec.recommenders: Invalid value: "default": must be a list',
    ]);
  });
});
