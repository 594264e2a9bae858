import fc from 'fast-check';
import {
  chooseVpa,
  type ControllerKey,
  type VpaCandidate,
} from '@tandem/admission';
import type { LabelSelector } from '@tandem/vpa-api';
import { podsByControllingVpa, type PodGroup } from './controlled-pods.js';
import { container, podWith, vpaWith } from './updater.fixtures.js';
import type { UpdaterPod } from './updater-pod.js';

function candidate(
  name: string,
  selector: LabelSelector | undefined,
  options: { namespace?: string; created?: string; target?: string } = {},
): VpaCandidate {
  const vpa = vpaWith(undefined);
  vpa.metadata = {
    name,
    namespace: options.namespace ?? 'demo',
    creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
  };
  vpa.spec.targetRef = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: options.target ?? name,
  };
  return { vpa, selector };
}

/**
 * Each pod's top-most controller, as the cycle resolved it (none: not in the map). One
 * object per name, as one walk answers for all pods of an owner, so pods share groups.
 */
const controllers = new Map<UpdaterPod, ControllerKey>();
const controllerOf = (each: UpdaterPod) => controllers.get(each);
const deployments = new Map<string, ControllerKey>();
function deployment(name: string): ControllerKey {
  let made = deployments.get(name);
  if (made === undefined) {
    made = { kind: 'Deployment', name };
    deployments.set(name, made);
  }
  return made;
}

/** A pod of the Deployment `owner`, by default its `app` label (null: a bare pod). */
function pod(
  name: string,
  labels: Record<string, string>,
  namespace = 'demo',
  owner: string | null | undefined = labels['app'],
): UpdaterPod {
  const made = podWith([container('app')], { name, namespace });
  made.metadata = { ...made.metadata, labels };
  if (owner !== undefined && owner !== null)
    controllers.set(made, deployment(owner));
  return made;
}

/** The pods grouped by controller object (as the cycle's owner walk hands them over); bare pods left out. */
function grouped(pods: readonly UpdaterPod[]): PodGroup[] {
  const groups = new Map<ControllerKey, PodGroup>();
  for (const each of pods) {
    const controller = controllerOf(each);
    if (controller === undefined) continue;
    const group = groups.get(controller);
    if (group === undefined)
      groups.set(controller, { controller, pods: [each] });
    else group.pods.push(each);
  }
  return [...groups.values()];
}

const podsOf = (groups: readonly PodGroup[]) => groups.flatMap((g) => g.pods);

const namesOf = (result: ReturnType<typeof podsByControllingVpa>) =>
  Object.fromEntries(
    [...result].map(([vpa, groups]) => [
      vpa.metadata?.name,
      podsOf(groups).map((p) => p.metadata?.name),
    ]),
  );

describe('podsByControllingVpa', () => {
  it('gives each pod to the VPA whose selector matches it, in its own namespace', () => {
    const result = podsByControllingVpa(
      [
        candidate('web', { matchLabels: { app: 'web' } }),
        candidate('api', { matchLabels: { app: 'api' } }),
        candidate(
          'other-ns',
          { matchLabels: { app: 'web' } },
          {
            namespace: 'elsewhere',
          },
        ),
      ],
      grouped([
        pod('web-1', { app: 'web' }),
        pod('api-1', { app: 'api', tier: 'x' }),
        pod('lonely', { app: 'db' }),
      ]),
    );
    expect(namesOf(result)).toEqual({ web: ['web-1'], api: ['api-1'] });
  });

  it('picks the oldest, then the smallest name, when several match', () => {
    const result = podsByControllingVpa(
      [
        candidate('b', { matchLabels: { app: 'web' } }, { target: 'web' }),
        candidate('a', { matchLabels: { app: 'web' } }, { target: 'web' }),
        candidate(
          'young',
          { matchLabels: { app: 'web' } },
          { created: '2026-06-01T00:00:00Z', target: 'web' },
        ),
      ],
      grouped([pod('web-1', { app: 'web' })]),
    );
    expect(namesOf(result)).toEqual({ a: ['web-1'] });
  });

  it('matches selectors made of expressions only, and ignores unusable ones', () => {
    const result = podsByControllingVpa(
      [
        candidate(
          'expr',
          {
            matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }],
          },
          { target: 'web' },
        ),
        candidate('unresolved', undefined, { target: 'web' }),
        // An operator the API server would refuse, as a hand-written object could hold.
        candidate(
          'invalid',
          {
            matchExpressions: [{ key: 'app', operator: 'Near', values: [] }],
          } as unknown as LabelSelector,
          { target: 'web' },
        ),
      ],
      grouped([pod('web-1', { app: 'web' })]),
    );
    expect(namesOf(result)).toEqual({ expr: ['web-1'] });
  });

  it('claims no bare pod and no pod of another controller that carries the labels', () => {
    const result = podsByControllingVpa(
      [candidate('web', { matchLabels: { app: 'web' } })],
      grouped([
        pod('web-1', { app: 'web' }),
        pod('bare', { app: 'web' }, 'demo', null),
        pod('job-pod', { app: 'web' }, 'demo', 'nightly-job'),
      ]),
    );
    expect(namesOf(result)).toEqual({ web: ['web-1'] });
  });

  it('matches again a pod of the same owner whose labels differ, an inherited name included', () => {
    const result = podsByControllingVpa(
      [
        candidate(
          'strict',
          { matchLabels: { app: 'web', toString: 'yes' } },
          { target: 'web' },
        ),
      ],
      grouped([
        pod('web-1', { app: 'web' }),
        pod('web-2', { app: 'web', toString: 'yes' }),
        pod('web-3', { app: 'web', toString: 'yes' }),
      ]),
    );
    expect(namesOf(result)).toEqual({ strict: ['web-2', 'web-3'] });
  });

  it('agrees with the admission webhook’s choice for every pod', () => {
    const labelValue = fc.constantFrom('a', 'b', 'c');
    // `toString`: a valid label key that every object inherits.
    const labels = fc.dictionary(
      fc.constantFrom('app', 'tier', 'toString'),
      labelValue,
    );
    const selector = fc.oneof(
      fc.record({ matchLabels: labels }),
      fc.record({
        matchExpressions: fc.constant([
          { key: 'tier', operator: 'Exists', values: [] as string[] },
        ]),
      }),
      fc.record({
        matchLabels: labels,
        matchExpressions: fc.constant([
          { key: 'app', operator: 'NotIn', values: ['c'] },
        ]),
      }),
    );
    // Few targets and owners, so VPAs share targets and pods share or lack controllers.
    const target = fc.constantFrom('web', 'api');
    const owner = fc.option(fc.constantFrom('web', 'api', 'job'), {
      nil: null,
    });
    const mode = fc.constantFrom<'Auto' | 'Off' | 'Initial'>(
      'Auto',
      'Off',
      'Initial',
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            selector,
            fc.constantFrom('x', 'y'),
            fc.nat(3),
            target,
            mode,
          ),
          { maxLength: 6 },
        ),
        fc.array(fc.tuple(labels, fc.constantFrom('x', 'y'), owner), {
          maxLength: 8,
        }),
        (vpaSpecs, podSpecs) => {
          const candidates = vpaSpecs.map(
            ([sel, ns, day, to, updateMode], index) => {
              const made = candidate(`vpa-${index}`, sel as LabelSelector, {
                namespace: ns,
                created: `2026-01-0${day + 1}T00:00:00Z`,
                target: to,
              });
              made.vpa.spec.updatePolicy = { updateMode };
              return made;
            },
          );
          const pods = podSpecs.map(([podLabels, ns, by], index) =>
            pod(`pod-${index}`, podLabels, ns, by),
          );
          // Grouped by owner, so pods of one owner with the same labels (and, across
          // namespaces, one owner object) meet the reuse of the answer before them.
          const result = podsByControllingVpa(candidates, grouped(pods));
          for (const each of pods) {
            const expected = chooseVpa(
              candidates.filter(
                (c) => c.vpa.metadata?.namespace === each.metadata?.namespace,
              ),
              { labels: each.metadata?.labels, controller: controllerOf(each) },
            );
            const actual = [...result].find(([, groups]) =>
              podsOf(groups).includes(each),
            )?.[0];
            expect(actual).toBe(expected);
          }
        },
      ),
    );
  });
});
