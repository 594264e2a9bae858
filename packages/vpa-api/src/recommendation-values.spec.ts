import fc from 'fast-check';
import { processRecommendationForPod } from './pod-resources.js';
import { parseQuantity } from './quantity.js';
import {
  parseKeptRecommendation,
  parseRecommendation,
  type ParsedRecommendation,
} from './recommendation-values.js';
import type {
  ControlledValues,
  LimitRange,
  Pod,
  RecommendedContainerResources,
  ResourceList,
  VerticalPodAutoscaler,
} from './types.js';

const cpu = fc.integer({ min: 1, max: 4000 }).map((milli) => `${milli}m`);
const memory = fc.integer({ min: 1, max: 4096 }).map((mebi) => `${mebi}Mi`);
const list: fc.Arbitrary<ResourceList> = fc.record(
  { cpu, memory, __proto__: cpu },
  { requiredKeys: [] },
);
const entry = (containerName: string) =>
  fc.record(
    {
      containerName: fc.constant(containerName),
      target: list,
      lowerBound: list,
      upperBound: list,
      uncappedTarget: list,
    },
    { requiredKeys: ['containerName', 'target'] },
  );

/** The parsed values as comparable text, so a shared or changed map shows. */
function texts(parsed: ParsedRecommendation) {
  const { containerName, target, lowerBound, upperBound, uncappedTarget } =
    parsed;
  const list = (values: ReadonlyMap<string, unknown> | undefined) =>
    values && [...values].map(([name, value]) => [name, String(value)]);
  return {
    containerName,
    target: list(target),
    lowerBound: list(lowerBound),
    upperBound: list(upperBound),
    uncappedTarget,
  };
}

describe('parseKeptRecommendation', () => {
  it('answers as parseRecommendation, with maps of its own each time', () => {
    fc.assert(
      fc.property(entry('app'), fc.nat({ max: 3 }), (original, changes) => {
        const expected = texts(parseRecommendation(original));
        for (let call = 0; call <= changes; call += 1) {
          const parsed = parseKeptRecommendation(original);
          expect(texts(parsed)).toEqual(expected);
          // Capping changes the maps in place: the next answer must not see it.
          parsed.target.set('memory', parseQuantity('7'));
          parsed.lowerBound?.clear();
          parsed.upperBound?.delete('memory');
        }
      }),
    );
  });

  it('throws for a malformed quantity every time', () => {
    const malformed = { containerName: 'app', target: { cpu: 'lots' } };
    expect(() => parseKeptRecommendation(malformed)).toThrow('lots');
    expect(() => parseKeptRecommendation(malformed)).toThrow('lots');
  });
});

describe('processRecommendationForPod with parses and cappings kept per entry', () => {
  const pod = fc
    .record({
      app: fc.record({ requests: list, limits: list }, { requiredKeys: [] }),
      sidecar: fc.record(
        { requests: list, limits: list },
        { requiredKeys: [] },
      ),
    })
    .map(
      ({ app, sidecar }): Pod => ({
        metadata: { name: 'pod', namespace: 'default' },
        spec: {
          containers: [
            { name: 'app', resources: app },
            { name: 'sidecar', resources: sidecar },
          ],
        },
      }),
    );
  const limitRanges = fc
    .record(
      {
        pod: fc.record({ min: list, max: list }, { requiredKeys: [] }),
        container: fc.record({ min: list, max: list }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    )
    .map(({ pod, container }): LimitRange[] => [
      {
        metadata: {
          name: 'limits',
          namespace: 'default',
          resourceVersion: '1',
        },
        spec: {
          limits: [
            ...(pod ? [{ type: 'Pod' as const, ...pod }] : []),
            ...(container
              ? [{ type: 'Container' as const, ...container }]
              : []),
          ],
        },
      },
    ]);
  const policy = fc.option(
    fc.record(
      {
        minAllowed: list,
        maxAllowed: list,
        controlledValues: fc.constantFrom<ControlledValues>(
          'RequestsAndLimits',
          'RequestsOnly',
        ),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  );
  /** Two VPAs with one recommendation object and policies of their own. */
  const vpas = fc
    .tuple(entry('app'), entry('sidecar'), policy, policy)
    .map(([app, sidecar, ...policies]): VerticalPodAutoscaler[] => {
      const status = {
        recommendation: {
          containerRecommendations: [
            app,
            sidecar,
          ] as RecommendedContainerResources[],
        },
      };
      return policies.map((policy) => ({
        metadata: { name: 'vpa', namespace: 'default' },
        spec: {
          targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          ...(policy && {
            resourcePolicy: {
              containerPolicies: [{ containerName: '*', ...policy }],
            },
          }),
        },
        status,
      }));
    });

  /**
   * A LimitRange that bounds nothing (an empty max) but takes processing down its general
   * path, which caps each pod's entries afresh.
   */
  const neutral: LimitRange[] = [
    {
      metadata: { name: 'neutral', namespace: 'default' },
      spec: { limits: [{ type: 'Container', max: {} }] },
    },
  ];

  it('answers without LimitRanges as processing each pod afresh, RequestsOnly included', () => {
    fc.assert(
      fc.property(
        vpas,
        fc.array(pod, { minLength: 1, maxLength: 4 }),
        (vpas, pods) => {
          for (const pod of pods)
            for (const vpa of vpas)
              expect(processRecommendationForPod(pod, vpa, [])).toEqual(
                processRecommendationForPod(pod, vpa, neutral),
              );
        },
      ),
    );
  });

  it('answers for any pods and VPAs in turn as for fresh objects (Pod LimitRange scaling included)', () => {
    fc.assert(
      fc.property(
        vpas,
        fc.oneof(fc.constant([]), limitRanges),
        fc.array(pod, { minLength: 1, maxLength: 4 }),
        (vpas, limitRanges, pods) => {
          for (const pod of pods)
            for (const vpa of vpas)
              expect(
                processRecommendationForPod(pod, vpa, limitRanges),
              ).toEqual(
                processRecommendationForPod(
                  structuredClone(pod),
                  structuredClone(vpa),
                  structuredClone(limitRanges),
                ),
              );
        },
      ),
    );
  });
});
