import fc from 'fast-check';
import type {
  ContainerResourcePolicy,
  EvictionRequirement,
  LimitRange,
  ResourceList,
} from '@tandem/vpa-api';
import { updaterRecommendation } from './controlled-recommendation.js';
import { assessPod } from './update-decision.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';

// Quantities in every notation, so a value whose canonical text has another suffix (1.5Ki
// prints 1536, 0.5 prints 500m, 1e3 stays 1e3) goes through the processing.
const quantity = fc.oneof(
  fc.integer({ min: 1, max: 4000 }).map((milli) => `${milli}m`),
  fc.integer({ min: 1, max: 4096 }).map((mebi) => `${mebi}Mi`),
  fc.integer({ min: 1, max: 9999 }).map((tenths) => `${tenths / 10}Ki`),
  fc.integer({ min: 1, max: 9 }).map((digit) => `${digit}e3`),
  fc.integer({ min: 1, max: 999 }).map((nanos) => `${nanos}n`),
  fc.integer({ min: 1, max: 40 }).map((units) => `${units / 8}`),
);
const names = ['cpu', 'memory', '__proto__', 'constructor'] as const;
/** A resource list as the JSON decoder makes it: `__proto__` an own entry. */
const list: fc.Arbitrary<ResourceList> = fc
  .array(fc.tuple(fc.constantFrom(...names), quantity), { maxLength: 4 })
  .map((pairs) => JSON.parse(JSON.stringify(Object.fromEntries(pairs))));
const maybeList = fc.option(list, { nil: undefined });
const policy = fc.record(
  {
    containerName: fc.constantFrom('app', 'side', '*'),
    mode: fc.constantFrom('Auto', 'Off'),
    minAllowed: list,
    maxAllowed: list,
    controlledValues: fc.constantFrom('RequestsAndLimits', 'RequestsOnly'),
  },
  { requiredKeys: ['containerName'] },
);
const limitRange = fc
  .record({
    type: fc.constantFrom('Pod', 'Container'),
    min: maybeList,
    max: maybeList,
    default: maybeList,
  })
  .map(
    (item): LimitRange => ({
      metadata: { name: 'limits', namespace: 'demo' },
      spec: { limits: [item] },
    }),
  );
const requirement = fc.record({
  resources: fc.subarray([...names], { minLength: 1 }),
  changeRequirement: fc.constantFrom(
    'TargetHigherThanRequests',
    'TargetLowerThanRequests',
  ),
}) as fc.Arbitrary<EvictionRequirement>;

describe('the processed recommendation read as kept quantities', () => {
  it('assesses every pod as the same recommendation parsed from its texts does', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            containerName: fc.constantFrom('app', 'side'),
            target: list,
            lowerBound: maybeList,
            upperBound: maybeList,
          }),
          { maxLength: 3 },
        ),
        fc.array(policy, { maxLength: 2 }),
        fc.array(limitRange, { maxLength: 2 }),
        fc.option(fc.array(requirement, { maxLength: 2 }), { nil: undefined }),
        fc.tuple(list, list, list),
        (entries, policies, limitRanges, evictionRequirements, resources) => {
          const [appRequests, appLimits, sideRequests] = resources;
          const pod = podWith([
            container('app', appRequests, appLimits),
            container('side', sideRequests),
          ]);
          const vpa = vpaWith(
            entries.map(({ containerName, target, ...bounds }) =>
              entry(containerName, target, bounds),
            ),
            {
              policies: policies as ContainerResourcePolicy[],
              ...(evictionRequirements && { evictionRequirements }),
            },
          );
          const processed = updaterRecommendation(pod, vpa, limitRanges);
          // A copy has no processed values behind its entries: its texts are parsed.
          const parsedAgain = structuredClone(processed);
          expect(assessPod(pod, vpa, processed)).toEqual(
            assessPod(pod, vpa, parsedAgain),
          );
          // The second pod shape of the VPA shares the kept capping and its entries.
          const other = podWith([container('app', sideRequests)]);
          expect(
            assessPod(other, vpa, updaterRecommendation(other, vpa, [])),
          ).toEqual(
            assessPod(
              other,
              vpa,
              structuredClone(updaterRecommendation(other, vpa, [])),
            ),
          );
        },
      ),
    );
  });
});
