import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { NotScalableError } from './scale-target.js';
import { targetResolver, type TargetReaders } from './target-resolver.js';
import type { TargetObject } from './well-known-kinds.js';

const SELECTOR = { matchLabels: { app: 'web' } };

function vpa(kind: string, apiVersion = 'apps/v1'): VerticalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { namespace: 'team-a', name: 'web-vpa' },
    spec: { targetRef: { apiVersion, kind, name: 'web' } },
  };
}

describe('targetResolver', () => {
  /** What each reader answers, and who was asked. */
  let wellKnownAnswer: () => Promise<TargetObject | undefined>;
  let scalableAnswer: () => Promise<TargetObject | undefined>;
  let calls: unknown[][];
  const readers: TargetReaders = {
    wellKnown: (...args) => {
      calls.push(['wellKnown', ...args]);
      return wellKnownAnswer();
    },
    scalable: (...args) => {
      calls.push(['scalable', ...args]);
      return scalableAnswer();
    },
  };
  const resolve = (object: VerticalPodAutoscaler) =>
    targetResolver(readers)(object);
  const answer = (target: TargetObject | undefined) => async () => target;
  const both = (target: TargetObject | undefined) => {
    wellKnownAnswer = answer(target);
    scalableAnswer = answer(target);
  };

  beforeEach(() => {
    calls = [];
    both({ selector: SELECTOR });
  });

  it('reads a well-known kind from its cache', async () => {
    await expect(resolve(vpa('StatefulSet'))).resolves.toEqual({
      selector: SELECTOR,
    });
    expect(calls).toEqual([['wellKnown', 'StatefulSet', 'team-a', 'web']]);
  });

  it('reads any other kind through its scale subresource', async () => {
    await expect(
      resolve(vpa('Rollout', 'argoproj.io/v1alpha1')),
    ).resolves.toEqual({ selector: SELECTOR });
    expect(calls).toEqual([
      [
        'scalable',
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web' },
        'team-a',
      ],
    ]);
  });

  it.each(['Deployment', 'Rollout'])(
    'refuses a %s that has a parent controller',
    async (kind) => {
      both({
        ownerReferences: [
          { kind: 'Other', name: 'not-controlling' },
          { kind: 'Parent', name: 'top', controller: true },
        ],
        selector: SELECTOR,
      });
      await expect(resolve(vpa(kind))).resolves.toEqual({
        unsupported: `The target ${kind} team-a/web has a parent controller (Parent top) but it should point to a topmost well-known or scalable controller`,
      });
    },
  );

  it('accepts a target controlled by a custom resource without /scale (owner-chain walk)', async () => {
    wellKnownAnswer = answer({
      ownerReferences: [
        {
          apiVersion: 'example.com/v1',
          kind: 'App',
          name: 'web',
          controller: true,
        },
      ],
      selector: SELECTOR,
    });
    scalableAnswer = async () => {
      throw new NotScalableError(
        'App in example.com/v1 is neither a well-known controller nor has a scale subresource',
      );
    };
    await expect(resolve(vpa('Deployment'))).resolves.toEqual({
      selector: SELECTOR,
    });
    expect(calls).toEqual([
      ['wellKnown', 'Deployment', 'team-a', 'web'],
      [
        'scalable',
        {
          apiVersion: 'example.com/v1',
          kind: 'App',
          name: 'web',
          controller: true,
        },
        'team-a',
      ],
    ]);
  });

  it('refuses a target controlled by a well-known kind without reading it', async () => {
    both({
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'rs',
          controller: true,
        },
      ],
      selector: SELECTOR,
    });
    await expect(resolve(vpa('Deployment'))).resolves.toEqual({
      unsupported:
        'The target Deployment team-a/web has a parent controller (ReplicaSet rs) but it should point to a topmost well-known or scalable controller',
    });
    expect(calls).toHaveLength(1);
  });

  it('says when the parent cannot be read, and does not guess', async () => {
    wellKnownAnswer = answer({
      ownerReferences: [
        {
          apiVersion: 'example.com/v1',
          kind: 'App',
          name: 'web',
          controller: true,
        },
      ],
      selector: SELECTOR,
    });
    scalableAnswer = async () => {
      throw new Error('connection refused');
    };
    await expect(resolve(vpa('Deployment'))).resolves.toEqual({
      unsupported:
        'Cannot read targetRef. Reason: its parent App team-a/web: connection refused',
    });
  });

  it('accepts a target whose controlling owner no longer exists', async () => {
    wellKnownAnswer = answer({
      ownerReferences: [
        {
          apiVersion: 'example.com/v1',
          kind: 'App',
          name: 'gone',
          controller: true,
        },
      ],
      selector: SELECTOR,
    });
    scalableAnswer = answer(undefined);
    await expect(resolve(vpa('Deployment'))).resolves.toEqual({
      selector: SELECTOR,
    });
  });

  it('accepts owners that do not control the target', async () => {
    both({
      ownerReferences: [{ kind: 'Other', name: 'x', controller: false }],
      selector: SELECTOR,
    });
    await expect(resolve(vpa('Deployment'))).resolves.toEqual({
      selector: SELECTOR,
    });
  });

  it('says when the target does not exist', async () => {
    both(undefined);
    await expect(resolve(vpa('Job'))).resolves.toEqual({
      unsupported:
        'Cannot read targetRef. Reason: Job team-a/web does not exist',
    });
  });

  it('says when the target has no selector', async () => {
    both({ selector: undefined });
    await expect(resolve(vpa('Rollout'))).resolves.toEqual({
      unsupported:
        'Cannot read targetRef. Reason: Rollout team-a/web has no selector',
    });
  });

  it('gives the reason a target could not be read', async () => {
    scalableAnswer = () =>
      Promise.reject(
        Object.assign(new Error('forbidden\nmore detail'), { code: 403 }),
      );
    await expect(resolve(vpa('Rollout'))).resolves.toEqual({
      unsupported: 'Cannot read targetRef. Reason: HTTP 403: forbidden',
    });
  });
});
