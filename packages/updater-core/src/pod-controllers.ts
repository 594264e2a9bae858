import {
  controllingOwner,
  controllingReference,
  type ControllerReference,
} from '@tandem/admission';
import type { PodGroup, UpdaterPod } from '@tandem/update-decisions';

/**
 * How the cycle finds a top-most controller: `VpaTargetResolution.topMostController`. Its
 * API version is kept: a scalable owner's replicas are read through its `/scale`.
 */
export type TopMostControllerLookup = (
  namespace: string,
  owner: ControllerReference,
) => Promise<ControllerReference | undefined>;

/**
 * The pods of `namespaces` (those with a VPA the updater acts on) grouped by their
 * top-most well-known or scalable controller, for `podsByControllingVpa`. Pods are
 * grouped by namespace and controlling owner, and each owner's chain is walked once:
 * thousands of pods share a few hundred ReplicaSets. A pod without a controlling owner,
 * or whose chain leads to none, is left out, and so controlled by no VPA; so is a pod
 * whose chain cannot be read, as upstream's `GetControllingVPAForPod` leaves it, which
 * `onUnreadable` hears once per owner.
 */
export async function podControllers(
  pods: readonly UpdaterPod[],
  namespaces: ReadonlySet<string>,
  topMostController: TopMostControllerLookup,
  onUnreadable: (
    namespace: string,
    owner: ControllerReference,
    error: unknown,
  ) => void,
): Promise<PodGroup<ControllerReference>[]> {
  const byNamespace = new Map<string, NamespaceOwners>();
  const owners: OwnerGroup[] = [];
  for (const pod of pods) {
    const namespace = pod.metadata?.namespace ?? '';
    if (!namespaces.has(namespace)) continue;
    const reference = controllingReference(pod.metadata?.ownerReferences);
    if (reference === undefined) continue;
    let inNamespace = byNamespace.get(namespace);
    if (inNamespace === undefined) {
      inNamespace = { byUid: new Map(), byKey: new Map() };
      byNamespace.set(namespace, inNamespace);
    }
    const group = ownerGroup(inNamespace, owners, namespace, reference);
    group?.pods.push(pod);
  }
  const walked = await Promise.all(
    owners.map(async ({ namespace, owner, pods: owned }) => {
      let controller: ControllerReference | undefined;
      try {
        controller = await topMostController(namespace, owner);
      } catch (error) {
        onUnreadable(namespace, owner, error);
        return undefined;
      }
      return controller === undefined ? undefined : { controller, pods: owned };
    }),
  );
  return walked.filter((group) => group !== undefined);
}

interface OwnerGroup {
  namespace: string;
  owner: ControllerReference;
  pods: UpdaterPod[];
}

/** One namespace's owner groups, by the owner reference's UID and by its API version, kind and name. */
interface NamespaceOwners {
  byUid: Map<string, OwnerGroup>;
  byKey: Map<string, OwnerGroup>;
}

/**
 * The group of the pod's controlling owner, made when new (and added to `owners`);
 * undefined when the reference has no kind or name. Groups are by API version, kind and
 * name, found first by the reference's UID: the UID is a text the pod object already
 * holds, where the key is built and hashed afresh for each new pod object (a sixth of
 * the first cycle went to keeping one per pod object). The UID only finds the group:
 * a reference naming another owner under a known UID is grouped by its key.
 */
function ownerGroup(
  inNamespace: NamespaceOwners,
  owners: OwnerGroup[],
  namespace: string,
  reference: Record<string, unknown>,
): OwnerGroup | undefined {
  const uid = reference['uid'];
  const byUid =
    typeof uid === 'string' && uid !== ''
      ? inNamespace.byUid.get(uid)
      : undefined;
  if (byUid !== undefined && namesOwner(reference, byUid.owner)) return byUid;
  const owner = controllingOwner([reference]);
  if (owner === undefined) return undefined;
  const key = `${owner.apiVersion ?? ''}\u0000${owner.kind}\u0000${owner.name}`;
  let group = inNamespace.byKey.get(key);
  if (group === undefined) {
    group = { namespace, owner, pods: [] };
    inNamespace.byKey.set(key, group);
    owners.push(group);
  }
  if (typeof uid === 'string' && uid !== '') inNamespace.byUid.set(uid, group);
  return group;
}

/** Whether the reference names `owner`: the same kind, name and API version (or none). */
function namesOwner(
  reference: Record<string, unknown>,
  owner: ControllerReference,
): boolean {
  const apiVersion = reference['apiVersion'];
  return (
    reference['kind'] === owner.kind &&
    reference['name'] === owner.name &&
    (typeof apiVersion === 'string' ? apiVersion : undefined) ===
      owner.apiVersion
  );
}
