import type { ControllerReference } from './admission-types.js';
import { candidate, vpaWith, webSelector } from './admission.fixtures.js';
import { controllingOwner, reviewedPodController } from './pod-controller.js';

const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'foo' };

describe("controllingOwner (upstream's TestFindParentControllerForPod)", () => {
  it.each([
    ['no owner references', undefined],
    ['an empty list', []],
    ['an owner with controller unset', [{ ...rs }]],
    ['an owner with controller: false', [{ ...rs, controller: false }]],
    ['not a list', { ...rs, controller: true }],
    ['a controller without a name', [{ kind: 'ReplicaSet', controller: true }]],
  ])('finds none for %s', (_what, ownerReferences) => {
    expect(controllingOwner(ownerReferences)).toBeUndefined();
  });

  it('passes on the owner marked controller, with its API version', () => {
    expect(
      controllingOwner([
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' },
        { ...rs, uid: 'u', controller: true },
      ]),
    ).toEqual(rs);
  });

  it('takes the last controller, as upstream’s loop leaves it', () => {
    expect(
      controllingOwner([
        { ...rs, controller: true },
        { ...rs, name: 'bar', controller: true },
      ]),
    ).toEqual({ ...rs, name: 'bar' });
  });
});

describe('reviewedPodController', () => {
  const raw = (ownerReferences?: unknown[]) => ({
    metadata: { ...(ownerReferences && { ownerReferences }) },
  });
  const pod = (ownerReferences?: unknown[]) => ({
    namespace: 'demo',
    labels: { app: 'web' },
    raw: raw(ownerReferences),
  });
  let asked: [string, ControllerReference][];
  const context = (answer: () => Promise<unknown>) => ({
    topMostController: (namespace: string, owner: ControllerReference) => {
      asked.push([namespace, owner]);
      return answer() as never;
    },
  });
  const deployment = () => Promise.resolve({ kind: 'Deployment', name: 'web' });
  const web = [candidate(vpaWith(undefined), webSelector)];

  beforeEach(() => {
    asked = [];
  });

  it("walks the pod's controlling owner to its top-most controller", async () => {
    await expect(
      reviewedPodController(
        pod([{ ...rs, controller: true }]),
        web,
        context(deployment),
      ),
    ).resolves.toEqual({ kind: 'Deployment', name: 'web' });
    expect(asked).toEqual([['demo', rs]]);
  });

  it('asks nothing for a pod without a controlling owner', async () => {
    await expect(
      reviewedPodController(pod(), web, context(deployment)),
    ).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks nothing when no selector matches the pod, whatever its controller', async () => {
    const other = [
      candidate(vpaWith(undefined), { matchLabels: { app: 'db' } }),
    ];
    await expect(
      reviewedPodController(
        pod([{ ...rs, controller: true }]),
        other,
        context(deployment),
      ),
    ).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('says why when the lookup fails or answers nonsense', async () => {
    const owned = pod([{ ...rs, controller: true }]);
    const failed = await reviewedPodController(
      owned,
      web,
      context(() => Promise.reject(new Error('the ReplicaSet cache is cold'))),
    );
    expect(failed).toEqual(
      new Error(
        'owner lookup failed for ReplicaSet demo/foo: the ReplicaSet cache is cold',
      ),
    );
    const garbage = await reviewedPodController(
      owned,
      web,
      context(() => Promise.resolve({ kind: 7 })),
    );
    expect(garbage).toEqual(
      new Error('owner lookup failed: returned no controller key'),
    );
  });
});
