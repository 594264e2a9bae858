import { ApiException, type V1ClusterRole } from '@kubernetes/client-node';
import { clusterRoleOwner } from './registration-owner.js';

const NAME = 'tandem-admission-webhook-registration';
const UID = '6f1c3a9e-0d2b-4c55-9a71-2b8f0e4d7c10';

/** The owner `clusterRoleOwner` finds with `read`, and what it said it could not do. */
async function ownerWith(
  read: (name: string) => Promise<V1ClusterRole>,
  clusterRole = NAME,
) {
  const warnings: string[] = [];
  const owner = await clusterRoleOwner(read, {
    clusterRole,
    onUnavailable: (message) => warnings.push(message),
  });
  return { owner, warnings };
}

const failing = (code: number) => () =>
  Promise.reject(new ApiException(code, 'failed', {}, {}));

/** A reader of an existing ClusterRole that records the names it was asked for. */
function existingClusterRole() {
  const read: string[] = [];
  const reader = async (name: string): Promise<V1ClusterRole> => {
    read.push(name);
    return { metadata: { name, uid: UID } };
  };
  return { read, reader };
}

describe('clusterRoleOwner', () => {
  it('is the ClusterRole read now: its uid, neither controller nor blockOwnerDeletion', async () => {
    const { read, reader } = existingClusterRole();
    expect(await ownerWith(reader)).toEqual({
      owner: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        name: NAME,
        uid: UID,
      },
      warnings: [],
    });
    expect(read).toEqual([NAME]);
  });

  it('is none, and reads nothing, without --webhook-owner-cluster-role (upstream)', async () => {
    const { read, reader } = existingClusterRole();
    expect(await ownerWith(reader, '')).toEqual({
      owner: undefined,
      warnings: [],
    });
    expect(read).toEqual([]);
  });

  it.each([
    [404, 'it does not exist (404)'],
    [403, 'the webhook may not get it (403)'],
  ])(
    'is none when the ClusterRole answers %i, with one warning naming flag and consequence',
    async (code, reason) => {
      expect(await ownerWith(failing(code))).toEqual({
        owner: undefined,
        warnings: [
          `--webhook-owner-cluster-role=${NAME}: ${reason}; vpa-webhook-config is registered ` +
            'without an owner reference, so removing Tandem will leave it behind',
        ],
      });
    },
  );

  it('is none, with a warning, when the ClusterRole comes back without a uid', async () => {
    const { owner, warnings } = await ownerWith(async () => ({
      metadata: { name: NAME },
    }));
    expect(owner).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringContaining('the API server gave it no uid'),
    ]);
  });

  it('throws any other error, so the registration is retried rather than made ownerless', async () => {
    const warnings: string[] = [];
    await expect(
      clusterRoleOwner(failing(503), {
        clusterRole: NAME,
        onUnavailable: (message) => warnings.push(message),
      }),
    ).rejects.toMatchObject({ code: 503 });
    expect(warnings).toEqual([]);
  });
});
