import type { ControllerReference } from '@tandem/admission';
import type { UpdaterPod } from '@tandem/update-decisions';
import type { OwnerReference } from '@tandem/vpa-api';
import { podControllers } from './pod-controllers.js';
import { NS, podOf } from './updater.fixtures.js';

/** A pod of `NS` whose only owner reference is `reference` (a controller), possibly malformed. */
function ownedBy(name: string, reference: Record<string, unknown>): UpdaterPod {
  const pod = podOf(name, new Date(0));
  pod.metadata = {
    ...pod.metadata,
    ownerReferences: [
      { controller: true, ...reference } as unknown as OwnerReference,
    ],
  };
  return pod;
}

/** Groups as owner → pod names, with the owners the walk was asked for. */
async function grouped(pods: readonly UpdaterPod[]) {
  const walked: string[] = [];
  const groups = await podControllers(
    pods,
    new Set([NS]),
    (namespace, owner: ControllerReference) => {
      walked.push(
        `${namespace}/${owner.apiVersion}/${owner.kind}/${owner.name}`,
      );
      return Promise.resolve({ kind: 'Deployment', name: owner.name });
    },
    () => undefined,
  );
  return {
    walked,
    groups: groups.map(({ controller, pods: owned }) => [
      controller.name,
      owned.map((pod) => pod.metadata?.name),
    ]),
  };
}

const replicaSet = (name: string, uid?: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name,
  ...(uid !== undefined && { uid }),
});

describe('podControllers', () => {
  it('groups pods by owner whatever the UIDs say, and walks each owner once', async () => {
    const { walked, groups } = await grouped([
      ownedBy('a-0', replicaSet('a', 'uid-a')),
      // the same owner under another UID (deleted and made again), and without one
      ownedBy('a-1', replicaSet('a', 'uid-a-again')),
      ownedBy('a-2', replicaSet('a')),
      // a UID already seen for another owner: grouped by the owner it names
      ownedBy('b-0', replicaSet('b', 'uid-a')),
      ownedBy('a-3', replicaSet('a', 'uid-a')),
      // the same name in another API version is another owner
      ownedBy('c-0', { ...replicaSet('a', 'uid-c'), apiVersion: 'apps/v2' }),
    ]);

    expect(walked).toEqual([
      `${NS}/apps/v1/ReplicaSet/a`,
      `${NS}/apps/v1/ReplicaSet/b`,
      `${NS}/apps/v2/ReplicaSet/a`,
    ]);
    expect(groups).toEqual([
      ['a', ['a-0', 'a-1', 'a-2', 'a-3']],
      ['b', ['b-0']],
      ['a', ['c-0']],
    ]);
  });

  it('leaves out pods whose controlling reference has no kind or name', async () => {
    const { walked, groups } = await grouped([
      ownedBy('nameless', { kind: 'ReplicaSet', uid: 'uid-x' }),
      ownedBy('named', replicaSet('x', 'uid-x')),
    ]);

    expect(walked).toEqual([`${NS}/apps/v1/ReplicaSet/x`]);
    expect(groups).toEqual([['x', ['named']]]);
  });
});
