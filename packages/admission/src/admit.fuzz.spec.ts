import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import {
  parseOriginalResources,
  type LabelSelector,
  type LimitRange,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { admit } from './admit.js';
import {
  ORIGINALS,
  POD_KIND,
  POD_RESOURCE,
  VPA_RESOURCE,
} from './admission.fixtures.js';
import type { AdmissionContext, AdmissionResult } from './admission-types.js';
import type { AddOperation } from './json-patch.js';

// ≥ 100,000 reviews in all, split so the suite stays within a few seconds per property.
const RUNS = { anything: 50_000, requests: 20_000, pods: 25_000, vpas: 10_000 };

// ---------------------------------------------------------------------------------------
// Arbitraries

const names = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('app', 'sidecar') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('constructor', '__proto__', 'a/b~c', '0', '12'),
  },
);
const resourceNames = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('cpu', 'memory') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('nvidia.com/gpu', 'ephemeral-storage', ''),
  },
);
const validQuantity = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 0, max: 10_000_000 }),
      fc.double({ min: 0, max: 1e6, noNaN: true }).map((n) => n.toFixed(3)),
    ),
    fc.constantFrom('', 'm', 'k', 'M', 'G', 'Ki', 'Mi', 'Gi', 'e3', 'u', 'n'),
  )
  .map(([number, suffix]) => `${number}${suffix}`);
const quantity = fc.oneof(
  { weight: 40, arbitrary: validQuantity },
  { weight: 2, arbitrary: fc.constantFrom('-1', '9e18', '10G', '1e999', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);
const resourceList = fc.dictionary(resourceNames, quantity, { maxKeys: 3 });
/** Mostly well-formed, sometimes any JSON where a field is expected. */
function sometimesGarbage<T>(
  arbitrary: fc.Arbitrary<T>,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 100, arbitrary },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/** Mostly `usual`, now and then one of `rare`. */
function mostly<T>(usual: T, ...rare: T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 15, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constantFrom(...rare) },
  );
}

const shallowJson = fc.jsonValue({ maxDepth: 2 });

const container = fc.record(
  {
    name: sometimesGarbage(names),
    image: fc.constant('nginx'),
    restartPolicy: fc.constant('Always'),
    resources: sometimesGarbage(
      fc.record(
        {
          requests: sometimesGarbage(resourceList),
          limits: sometimesGarbage(resourceList),
          claims: fc.constant([{ name: 'gpu' }]),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['name'] },
);
const annotations = fc.dictionary(
  fc.constantFrom(ORIGINALS, 'vpaUpdates', 'team', 'a/b~c', 'constructor'),
  fc.string({ maxLength: 20 }),
  { maxKeys: 3 },
);
const pod = fc.record(
  {
    metadata: sometimesGarbage(
      fc.record(
        {
          name: fc.constantFrom('web-1', ''),
          generateName: fc.constant('web-'),
          namespace: fc.constant('demo'),
          labels: sometimesGarbage(
            mostly<Record<string, string>>({ app: 'web' }, { app: 'db' }, {}),
          ),
          annotations: sometimesGarbage(annotations),
          ownerReferences: fc.constant([
            { kind: 'ReplicaSet', name: 'web-1', controller: true },
          ]),
        },
        { requiredKeys: ['labels'] },
      ),
    ),
    spec: sometimesGarbage(
      fc.record(
        {
          containers: sometimesGarbage(
            fc.array(container, { minLength: 1, maxLength: 3 }),
          ),
          initContainers: sometimesGarbage(
            fc.array(container, { maxLength: 2 }),
          ),
          resources: sometimesGarbage(
            fc.record(
              { requests: resourceList, limits: resourceList },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    status: fc.constant({
      containerStatuses: [{ name: 'app', resources: { limits: { cpu: 'x' } } }],
    }),
  },
  { requiredKeys: ['metadata', 'spec'] },
);

const containerPolicy = fc.record(
  {
    containerName: fc.oneof(names, fc.constant('*')),
    mode: mostly('Auto', 'Off'),
    controlledValues: fc.constantFrom('RequestsAndLimits', 'RequestsOnly'),
    controlledResources: fc.subarray(['cpu', 'memory', 'nvidia.com/gpu']),
    minAllowed: resourceList,
    maxAllowed: resourceList,
  },
  { requiredKeys: ['containerName'] },
);
const recommendation = fc.record(
  {
    containerName: names,
    target: fc.dictionary(resourceNames, quantity, { minKeys: 1, maxKeys: 3 }),
    lowerBound: resourceList,
    upperBound: resourceList,
  },
  { requiredKeys: ['containerName', 'target'] },
);
const vpa = fc.record(
  {
    metadata: fc.record({
      name: fc.constantFrom('a', 'b', 'web'),
      namespace: fc.constant('demo'),
      creationTimestamp: fc.constantFrom(
        '2024-01-01T00:00:00Z',
        '2023-06-01T00:00:00Z',
        'yesterday',
      ),
    }),
    spec: fc.record(
      {
        targetRef: fc.constant({ kind: 'Deployment', name: 'web' }),
        updatePolicy: fc.record({
          updateMode: fc.constantFrom(
            'Off',
            'Initial',
            'Recreate',
            'Auto',
            'InPlaceOrRecreate',
            'InPlace',
            'Bogus',
          ),
        }),
        resourcePolicy: fc.record({
          containerPolicies: fc.array(containerPolicy, { maxLength: 3 }),
        }),
      },
      { requiredKeys: ['targetRef'] },
    ),
    status: fc.record({
      recommendation: fc.record({
        containerRecommendations: fc.array(recommendation, {
          minLength: 1,
          maxLength: 3,
        }),
      }),
    }),
  },
  { requiredKeys: ['metadata', 'spec'] },
);
const selector = fc.constantFrom<LabelSelector | undefined>(
  { matchLabels: { app: 'web' } },
  { matchLabels: { app: 'web' } },
  { matchLabels: { app: 'web' } },
  {},
  undefined,
  { matchLabels: { app: 'db' } },
  { matchExpressions: [{ key: 'app', operator: 'Bogus' as never }] },
);
const limitRange = fc
  .array(
    fc.record(
      {
        type: fc.constantFrom('Container', 'Pod'),
        max: resourceList,
        min: resourceList,
        default: resourceList,
      },
      { requiredKeys: ['type'] },
    ),
    { maxLength: 2 },
  )
  .map((limits) => ({ spec: { limits } }) as LimitRange);

type Behaviour = 'ok' | 'throw' | 'reject' | 'garbage';
const behaviour = fc.oneof(
  { weight: 27, arbitrary: fc.constant<Behaviour>('ok') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Behaviour>('throw', 'reject', 'garbage'),
  },
);

function lookup<T>(result: T, how: Behaviour): () => Promise<T> {
  return () => {
    if (how === 'throw') throw new Error('lookup threw');
    if (how === 'reject') return Promise.reject(new Error('lookup rejected'));
    return Promise.resolve(how === 'garbage' ? ({} as T) : result);
  };
}

const anyContext = fc
  .record({
    vpas: fc.array(fc.record({ vpa: sometimesGarbage(vpa), selector }), {
      minLength: 1,
      maxLength: 3,
    }),
    limitRanges: fc.array(limitRange, { maxLength: 2 }),
    vpaLookup: behaviour,
    ownerLookup: behaviour,
    limitRangeLookup: behaviour,
    gates: fc.record({
      InPlace: fc.boolean(),
      PerVPAConfig: fc.boolean(),
      CPUStartupBoost: fc.boolean(),
    }),
  })
  .map(
    (options): AdmissionContext => ({
      vpasInNamespace: lookup(
        options.vpas as {
          vpa: VerticalPodAutoscaler;
          selector: LabelSelector;
        }[],
        options.vpaLookup,
      ),
      topMostController: lookup(
        { kind: 'Deployment', name: 'web' },
        options.ownerLookup,
      ),
      limitRanges: lookup(options.limitRanges, options.limitRangeLookup),
      featureGates: options.gates,
    }),
  );

/**
 * Contexts drawn once, with a fixed seed, then picked from: generating a fresh set of VPAs
 * and LimitRanges for every review would cost more than admitting it.
 */
const context = fc.constantFrom(
  ...fc.sample(anyContext, { numRuns: 500, seed: 20_241_125 }),
);

function envelope(request: unknown): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request,
  };
}

const podRequest = fc.record({
  uid: fc.constant('uid-1'),
  operation: mostly('CREATE', 'UPDATE', 'DELETE'),
  namespace: mostly<string | undefined>('demo', undefined),
  resource: mostly(POD_RESOURCE, {
    group: '',
    version: 'v2',
    resource: 'pods',
  }),
  kind: fc.constant(POD_KIND),
  subResource: mostly<string | undefined>(undefined, 'status', 'resize'),
  object: sometimesGarbage(pod),
});

const vpaRequest = fc.record({
  uid: fc.constant('uid-1'),
  operation: fc.constantFrom('CREATE', 'UPDATE', 'DELETE'),
  namespace: fc.constant('demo'),
  resource: fc.constant(VPA_RESOURCE),
  object: sometimesGarbage(vpa),
  oldObject: sometimesGarbage(vpa),
});

// ---------------------------------------------------------------------------------------
// What must hold for every review. Plain checks, not `expect`: at 100,000 runs Jest's
// matchers would cost more than everything else together.

function check(
  condition: boolean,
  what: string,
  result: AdmissionResult,
): void {
  if (!condition) {
    throw new Error(
      `${what}; result: ${JSON.stringify(result).slice(0, 2000)}`,
    );
  }
}

function checkResult(body: unknown, result: AdmissionResult): void {
  if (result.httpStatus === 400) {
    check(result.review === undefined, '400 without review', result);
    check(result.outcome === 'error', '400 is an error', result);
    return;
  }
  const request = (body as { request: Record<string, unknown> }).request;
  const response = result.review?.response;
  check(response?.uid === request['uid'], 'uid echoed', result);
  if (response?.allowed === false) {
    check(result.resource === 'VPA', 'only VPAs are denied', result);
    check(response.status?.code === 422, 'denied as 422', result);
    check(response.patch === undefined, 'no patch when denied', result);
  }
  if (result.resource === 'Pod') {
    check(response?.allowed === true, 'pods always allowed', result);
  }
  if (response?.patch === undefined) {
    check(response?.patchType === undefined, 'no patchType alone', result);
    return;
  }
  check(response.patchType === 'JSONPatch', 'patchType JSONPatch', result);
  const operations = JSON.parse(
    Buffer.from(response.patch, 'base64').toString('utf8'),
  ) as AddOperation[];
  check(operations.length > 0, 'no empty patch', result);
  // Throws (failing the property) unless every operation applies to the submitted object.
  const after = jsonPatch.applyPatch(
    structuredClone(request['object']),
    operations,
    true,
  ).newDocument as { metadata: { annotations: Record<string, string> } };
  if (result.resource !== 'Pod') return;
  // Upstream patches only pods a VPA controls; every other pod comes out byte-identical.
  check(result.vpaName !== undefined, 'only controlled pods patched', result);
  checkOriginals(request['object'], after, result);
}

/** The originals annotation is never replaced, and a new one lists every container. */
function checkOriginals(
  before: unknown,
  after: { metadata: { annotations: Record<string, string> } },
  result: AdmissionResult,
): void {
  const submitted = before as {
    metadata?: { annotations?: Record<string, string> };
    spec: {
      containers?: { name: string }[];
      initContainers?: { name: string }[];
    };
  };
  const existing = submitted.metadata?.annotations;
  const text = after.metadata.annotations[ORIGINALS];
  if (existing && Object.hasOwn(existing, ORIGINALS)) {
    check(text === existing[ORIGINALS], 'existing originals kept', result);
    return;
  }
  check(typeof text === 'string', 'originals recorded', result);
  // Sorted: JSON.parse moves index-like names (`0`) first, whatever the text's order.
  const recorded = Object.keys(JSON.parse(text as string) as object).sort();
  const containerNames = [
    ...(submitted.spec.initContainers ?? []),
    ...(submitted.spec.containers ?? []),
  ].map(({ name }) => name);
  check(
    JSON.stringify(recorded) ===
      JSON.stringify([...new Set(containerNames)].sort()),
    'originals list every container once',
    result,
  );
  const parsed = parseOriginalResources(text as string);
  // Strict parsing fails only on quantities the API server would refuse anyway.
  check(
    !(parsed instanceof Error) || /quantity/.test(parsed.message),
    'originals parse back',
    result,
  );
}

async function admitAndCheck(
  body: unknown,
  admissionContext: AdmissionContext,
): Promise<void> {
  const result = await admit(body, admissionContext);
  checkResult(body, result);
}

// Generous: on a loaded 2-core machine the pod property alone takes 10–20 s.
const TIMEOUT_MS = 120_000;

describe('admit fuzzing', () => {
  it(
    'answers any JSON-ish body without throwing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.anything({ maxDepth: 2, maxKeys: 4 }),
            shallowJson.map(envelope),
            fc.record({
              apiVersion: fc.constantFrom('admission.k8s.io/v1', 'v1'),
              kind: fc.constantFrom('AdmissionReview', 'Pod'),
              request: fc.anything({ maxDepth: 2, maxKeys: 4 }),
            }),
          ),
          context,
          admitAndCheck,
        ),
        { numRuns: RUNS.anything },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers any request with a uid, never denying what is not a VPA',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .record(
              {
                uid: fc.constantFrom('uid-1', 'x'),
                operation: fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 5),
                resource: fc.oneof(
                  fc.constantFrom(POD_RESOURCE, VPA_RESOURCE),
                  shallowJson,
                ),
                kind: fc.oneof(fc.constant(POD_KIND), shallowJson),
                subResource: shallowJson,
                namespace: shallowJson,
                object: shallowJson,
                oldObject: shallowJson,
              },
              { requiredKeys: ['uid'] },
            )
            .map(envelope),
          context,
          admitAndCheck,
        ),
        { numRuns: RUNS.requests },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'admits every plausible pod, with a patch that applies and keeps the originals',
    async () => {
      await fc.assert(
        fc.asyncProperty(podRequest.map(envelope), context, admitAndCheck),
        { numRuns: RUNS.pods },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'validates every plausible VPA, denying only with 422',
    async () => {
      await fc.assert(
        fc.asyncProperty(vpaRequest.map(envelope), context, admitAndCheck),
        { numRuns: RUNS.vpas },
      );
    },
    TIMEOUT_MS,
  );
});
