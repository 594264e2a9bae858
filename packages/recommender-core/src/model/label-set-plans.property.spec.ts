import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import fc from 'fast-check';
import { ClusterModel, type PodSnapshot } from './cluster-model.js';
import { DAY, MIB, NS, selectorFor, T0, vpaObject } from './model.fixtures.js';

const APPS = ['web', 'api', 'other'] as const;
const VPA_NAMES = ['web', 'api', 'track-a'] as const;

/** `web` and `api` select their app; `track-a` every pod of track a, `web`'s among them. */
const SELECTORS = {
  web: selectorFor({ app: 'web' }),
  api: selectorFor({ app: 'api' }),
  'track-a': selectorFor({ track: 'a' }),
};

type Step =
  | {
      readonly pod: number;
      readonly app: (typeof APPS)[number];
      readonly track: 'a' | 'b';
      readonly containers: string[];
      readonly memoryMib: number;
    }
  | {
      readonly vpa: (typeof VPA_NAMES)[number];
      /** A strategy annotation, or null: the VPA is deleted. */
      readonly strategy: string | undefined | null;
    }
  | { readonly collectAfterDays: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      pod: fc.integer({ min: 0, max: 7 }),
      app: fc.constantFrom(...APPS),
      track: fc.constantFrom('a', 'b'),
      containers: fc.shuffledSubarray(['app', 'log', 'proxy'], {
        minLength: 1,
      }),
      memoryMib: fc.integer({ min: 0, max: 2048 }),
    }),
    weight: 4,
  },
  fc.record({
    vpa: fc.constantFrom(...VPA_NAMES),
    strategy: fc.constantFrom(undefined, null, 'tandem', 'autopilot'),
  }),
  fc.record({ collectAfterDays: fc.integer({ min: 0, max: 9 }) }),
);

function vpa(
  name: string,
  strategy: string | undefined,
): VerticalPodAutoscaler {
  const object = vpaObject(name);
  return strategy === undefined
    ? object
    : {
        ...object,
        metadata: {
          ...object.metadata,
          annotations: { 'tandem.dev/strategy': strategy },
        },
      };
}

/** What a model holds after a history of steps, or after only the VPAs and pods it ends with. */
interface Outcome {
  readonly model: ClusterModel;
  readonly pods: Map<number, PodSnapshot>;
}

/**
 * Runs the steps on one model, keeping each label set's plan across pods as long as the
 * model sees fit; then upserts every pod's last snapshot again (unchanged objects, so a
 * pod is worked out anew only if a VPA changed since).
 */
function afterSteps(steps: readonly Step[], memorySaver: boolean): Outcome {
  const model = new ClusterModel({ memorySaver });
  for (const name of VPA_NAMES)
    model.upsertVpa(vpa(name, undefined), SELECTORS[name]);
  const pods = new Map<number, PodSnapshot>();
  let nowMs = T0;
  for (const taken of steps) {
    if ('pod' in taken) {
      const snapshot: PodSnapshot = {
        namespace: NS,
        name: `pod-${taken.pod}`,
        labels: { app: taken.app, track: taken.track },
        phase: 'Running',
        containers: taken.containers.map((name) => ({
          name,
          memoryRequestBytes: taken.memoryMib * MIB,
        })),
        initContainerNames: [],
      };
      pods.set(taken.pod, snapshot);
      model.upsertPod(snapshot, nowMs);
    } else if ('vpa' in taken) {
      if (taken.strategy === null)
        model.removeVpasNotIn(
          model.vpaKeys().filter((key) => key !== `${NS}/${taken.vpa}`),
        );
      else
        model.upsertVpa(vpa(taken.vpa, taken.strategy), SELECTORS[taken.vpa]);
    } else {
      nowMs += taken.collectAfterDays * DAY;
      model.removePodsNotIn(
        [...pods.values()].map((pod) => `${NS}/${pod.name}`),
      );
      model.garbageCollect(nowMs);
    }
  }
  for (const snapshot of pods.values()) model.upsertPod(snapshot, nowMs);
  return { model, pods };
}

/** A new model given only the VPAs and pods `outcome`'s model ends with. */
function rebuilt({ model, pods }: Outcome, memorySaver: boolean): ClusterModel {
  const fresh = new ClusterModel({ memorySaver });
  for (const key of model.vpaKeys()) {
    const tracked = model.vpa(key);
    const name = tracked?.name as (typeof VPA_NAMES)[number];
    if (tracked !== undefined) fresh.upsertVpa(tracked.object, SELECTORS[name]);
  }
  for (const snapshot of pods.values()) fresh.upsertPod(snapshot, T0);
  return fresh;
}

/** What each tracked container feeds and which VPA controls its pod, by pod and container. */
function wiring(model: ClusterModel, pods: Map<number, PodSnapshot>) {
  const aggregates = new Map<unknown, number>();
  return [...pods.values()].map((pod) => ({
    pod: pod.name,
    controlledBy: model.controllingVpa(NS, pod.name)?.key,
    containers: pod.containers.map(({ name }) => {
      const aggregate = model.aggregateOfContainer(NS, pod.name, name);
      if (aggregate === undefined) return undefined;
      // Aggregates numbered in order of first appearance: shared ones get one number.
      if (!aggregates.has(aggregate))
        aggregates.set(aggregate, aggregates.size);
      return aggregates.get(aggregate);
    }),
  }));
}

describe('label set plans', () => {
  it('wire every pod as a model given only the final VPAs and pods would', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (steps, memorySaver) => {
          const outcome = afterSteps(steps, memorySaver);
          const fresh = rebuilt(outcome, memorySaver);
          const { model, pods } = outcome;
          expect(model.podKeys().sort()).toEqual(fresh.podKeys().sort());
          expect(wiring(model, pods)).toEqual(wiring(fresh, pods));
          for (const key of fresh.vpaKeys()) {
            expect(model.matchingPodCount(key)).toBe(
              fresh.matchingPodCount(key),
            );
            const clocks = (of: ClusterModel) => {
              const seen: string[] = [];
              of.forEachLiveContainerOfVpa(key, (containerName, _, clock) =>
                seen.push(`${containerName} ${clock === undefined}`),
              );
              return seen.sort();
            };
            expect(clocks(model)).toEqual(clocks(fresh));
          }
          // Every container feeds an aggregate the model holds (none collected under it).
          const held = new Set(
            model
              .vpaKeys()
              .flatMap((key) => model.aggregatesOfVpa(key))
              .map(({ state }) => state),
          );
          for (const key of model.vpaKeys())
            model.forEachLiveContainerOfVpa(key, (_, state) =>
              expect(held.has(state.aggregate)).toBe(true),
            );
        },
      ),
      { numRuns: 300 },
    );
  });
});
