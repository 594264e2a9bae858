import type {
  RecommendedContainerResources,
  ResourceList,
  VerticalPodAutoscalerCondition,
  VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import fc from 'fast-check';
import { shareWithObserved, TextInterner } from './status-sharing.js';

const condition: VerticalPodAutoscalerCondition = {
  type: 'RecommendationProvided',
  status: 'True',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

function container(
  containerName: string,
  target: ResourceList,
  upperBound: ResourceList,
): RecommendedContainerResources {
  return {
    containerName,
    target,
    lowerBound: { cpu: '10m', memory: '100Mi' },
    upperBound,
    uncappedTarget: { ...target },
  };
}

function status(
  containers: RecommendedContainerResources[],
): VerticalPodAutoscalerStatus {
  return {
    recommendation: { containerRecommendations: containers },
    conditions: [{ ...condition }],
    observedGeneration: 1,
  };
}

describe('shareWithObserved', () => {
  it('takes the unchanged parts from the observed status, and its JSON is the new one', () => {
    const previous = status([
      container(
        'app',
        { cpu: '100m', memory: '1Gi' },
        { cpu: '2', memory: '4Gi' },
      ),
    ]);
    const next = status([
      container(
        'app',
        { cpu: '100m', memory: '1Gi' },
        { cpu: '3', memory: '4Gi' },
      ),
    ]);
    const shared = shareWithObserved(previous, next, new TextInterner());
    expect(JSON.stringify(shared)).toBe(JSON.stringify(next));
    expect(shared.conditions).toBe(previous.conditions);
    const [was] = previous.recommendation?.containerRecommendations ?? [];
    const [now] = shared.recommendation?.containerRecommendations ?? [];
    expect(now?.target).toBe(was?.target);
    expect(now?.lowerBound).toBe(was?.lowerBound);
    expect(now?.uncappedTarget).toBe(was?.uncappedTarget);
    expect(now?.upperBound).not.toBe(was?.upperBound);
  });

  it('gives back the observed status parts whole when nothing changed', () => {
    const make = () =>
      status([
        container(
          'app',
          { cpu: '1', memory: '1Gi' },
          { cpu: '2', memory: '2Gi' },
        ),
      ]);
    const previous = make();
    const shared = shareWithObserved(previous, make(), new TextInterner());
    expect(shared.recommendation).toBe(previous.recommendation);
    expect(shared.conditions).toBe(previous.conditions);
  });

  it('keeps a key order the observed status does not share', () => {
    const previous: VerticalPodAutoscalerStatus = {
      conditions: [{ ...condition }],
      recommendation: {
        containerRecommendations: [
          { containerName: 'app', target: { memory: '1Gi', cpu: '1' } },
        ],
      },
    };
    const next: VerticalPodAutoscalerStatus = {
      recommendation: {
        containerRecommendations: [
          { containerName: 'app', target: { cpu: '1', memory: '1Gi' } },
        ],
      },
      conditions: [{ ...condition }],
    };
    const shared = shareWithObserved(previous, next, new TextInterner());
    expect(JSON.stringify(shared)).toBe(JSON.stringify(next));
  });

  it('hands out one copy of each quantity text, up to its capacity', () => {
    const texts = new TextInterner(1);
    const first = texts.intern(['12', '3m'].join(''));
    expect(texts.intern(['1', '23m'].join(''))).toBe(first);
    const other = ['4', '5m'].join('');
    expect(texts.intern(other)).toBe(other);
  });
});

const quantity = fc.constantFrom(
  '1',
  '1000m',
  '250m',
  '1Gi',
  '1073741824',
  '0',
);
const list: fc.Arbitrary<ResourceList> = fc.oneof(
  fc.record({ cpu: quantity, memory: quantity }),
  fc.record({ memory: quantity, cpu: quantity }),
  fc.record({ cpu: quantity }),
  fc.record({}), // a new object each time, as JSON gives
);
const containerRecommendation: fc.Arbitrary<RecommendedContainerResources> =
  fc.record(
    {
      containerName: fc.constantFrom('app', 'sidecar'),
      target: list,
      lowerBound: list,
      upperBound: list,
      uncappedTarget: list,
    },
    { requiredKeys: ['containerName', 'target'] },
  );
const conditionArbitrary: fc.Arbitrary<VerticalPodAutoscalerCondition> =
  fc.record(
    {
      type: fc.constantFrom('RecommendationProvided', 'NoPodsMatched'),
      status: fc.constantFrom('True', 'False'),
      lastTransitionTime: fc.constantFrom(
        '2026-01-01T00:00:00Z',
        '2026-01-01T00:01:00Z',
        null,
      ),
      reason: fc.constantFrom('NoPodsMatched', ''),
      observedGeneration: fc.nat(2),
    },
    { requiredKeys: ['type', 'status'] },
  ) as fc.Arbitrary<VerticalPodAutoscalerCondition>;
const statusArbitrary: fc.Arbitrary<VerticalPodAutoscalerStatus> = fc.record(
  {
    recommendation: fc.record(
      {
        containerRecommendations: fc.array(containerRecommendation, {
          maxLength: 3,
        }),
      },
      { requiredKeys: [] },
    ),
    conditions: fc.array(conditionArbitrary, { maxLength: 2 }),
    observedGeneration: fc.nat(3),
  },
  { requiredKeys: [] },
);

/** Every object reachable from a value (arrays and plain objects). */
function objectsIn(value: unknown, into = new Set<unknown>()): Set<unknown> {
  if (typeof value !== 'object' || value === null) return into;
  into.add(value);
  for (const child of Object.values(value)) objectsIn(child, into);
  return into;
}

describe('shareWithObserved, property', () => {
  it('writes the same JSON as the status it was given, and shares only what equals the observed one', () => {
    fc.assert(
      fc.property(
        fc.option(statusArbitrary, { nil: undefined }),
        statusArbitrary,
        fc.boolean(),
        (previous, next, nextFromPrevious) => {
          // Half the time the new status starts as a copy of the observed one: most of it equal.
          const given: VerticalPodAutoscalerStatus =
            nextFromPrevious && previous !== undefined
              ? { ...(structuredClone(previous) as object), ...next }
              : next;
          const expected = JSON.stringify(given);
          const shared = shareWithObserved(previous, given, new TextInterner());
          expect(JSON.stringify(shared)).toBe(expected);
          // The inputs are left as they were.
          expect(JSON.stringify(given)).toBe(expected);
          // Every shared object is one of the observed status's or a new one, never one of
          // the given status's that also sits in the observed one.
          const observed = objectsIn(previous);
          for (const part of objectsIn(shared))
            if (observed.has(part))
              expect(JSON.stringify(part)).toBe(
                JSON.stringify(findEqualPath(previous, given, part)),
              );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('statuses equal as text share everything with the observed one', () => {
    fc.assert(
      fc.property(statusArbitrary, (previous) => {
        const shared = shareWithObserved(
          previous,
          structuredClone(previous),
          new TextInterner(),
        );
        expect(JSON.stringify(shared)).toBe(JSON.stringify(previous));
        if (previous.conditions !== undefined)
          expect(shared.conditions).toBe(previous.conditions);
        if (previous.recommendation?.containerRecommendations !== undefined)
          expect(shared.recommendation).toBe(previous.recommendation);
      }),
    );
  });
});

/**
 * The part of `given` at the path where `part` sits in `previous`: a shared part must equal
 * what the given status holds in its place.
 */
function findEqualPath(
  previous: unknown,
  given: unknown,
  part: unknown,
): unknown {
  if (previous === part) return given;
  if (typeof previous !== 'object' || previous === null) return undefined;
  if (typeof given !== 'object' || given === null) return undefined;
  for (const [key, child] of Object.entries(previous)) {
    const found = findEqualPath(
      child,
      (given as Record<string, unknown>)[key],
      part,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}
