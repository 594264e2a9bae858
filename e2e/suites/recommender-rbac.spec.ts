import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoordinationV1Api,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { stopAllApps } from '../harness/app-process.ts';
import { isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { httpStatusOf } from '../harness/kube.ts';
import { DEPLOY_DIR, installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { tokenKubeConfig } from '../harness/raw-get.ts';
import {
  startRecommender,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { vpaObjects, type Checkpoint } from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('rbac');
const objects = kube.config.makeApiClient(KubernetesObjectApi);
const authorization = kube.config.makeApiClient(AuthorizationV1Api);
const SERVICE_ACCOUNT =
  'system:serviceaccount:tandem-system:tandem-recommender';
const RBAC_FILE = join(DEPLOY_DIR, 'recommender', 'rbac.yaml');
/** The recommender's default `--leader-elect-resource-name`, the only Lease it may renew. */
const LEASE = 'vpa-recommender-lease';

interface ResourceAccess {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
  namespace?: string;
}
/** A request to a path that is no API object, e.g. discovery's `/apis/<group>/<version>`. */
interface PathAccess {
  verb: string;
  path: string;
}
type Access = ResourceAccess | PathAccess;

const named = (accesses: Access[]) =>
  accesses.map((access): [string, Access] => [
    'path' in access
      ? `${access.verb} ${access.path}`
      : `${access.verb} ${access.group || 'core'}/${access.resource}${access.subresource ? `/${access.subresource}` : ''}${access.name ? ` ${access.name}` : ''} in ${access.namespace ?? 'default'}`,
    access,
  ]);

async function allowed(access: Access): Promise<boolean> {
  const review = await authorization.createSubjectAccessReview({
    body: {
      spec: {
        user: SERVICE_ACCOUNT,
        groups: [
          'system:serviceaccounts',
          'system:serviceaccounts:tandem-system',
          'system:authenticated',
        ],
        ...('path' in access
          ? { nonResourceAttributes: access }
          : {
              resourceAttributes: {
                ...access,
                namespace: access.namespace ?? 'default',
              },
            }),
      },
    },
  });
  return review.status?.allowed === true;
}

const manifests = [join(DEPLOY_DIR, 'namespace.yaml'), RBAC_FILE].flatMap(
  (file) => loadAllYaml(readFileSync(file, 'utf8')) as KubernetesObject[],
);

// The namespace first, then the ServiceAccount, roles and bindings as the manifest has them
// (replaced when a reused cluster still holds an older version).
beforeAll(async () => {
  for (const manifest of manifests) {
    try {
      await objects.create(manifest);
    } catch (error) {
      if (httpStatusOf(error) !== 409) throw error;
      if (manifest.kind !== 'Namespace') await objects.replace(manifest);
    }
  }
});

const VPA_GROUP = 'autoscaling.k8s.io';
const VPAS = 'verticalpodautoscalers';
const CHECKPOINTS = 'verticalpodautoscalercheckpoints';
const LEASES = { group: 'coordination.k8s.io', resource: 'leases' };

const needed: Access[] = [
  { verb: 'watch', group: '', resource: 'pods' },
  { verb: 'watch', group: '', resource: 'events' },
  { verb: 'create', group: '', resource: 'events' },
  { verb: 'patch', group: '', resource: 'events' },
  { verb: 'list', group: VPA_GROUP, resource: VPAS },
  { verb: 'patch', group: VPA_GROUP, resource: VPAS, subresource: 'status' },
  { verb: 'list', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'create', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'patch', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'delete', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'list', group: 'metrics.k8s.io', resource: 'pods' },
  // Target resolution: list+watch caches of the well-known controllers...
  { verb: 'watch', group: 'apps', resource: 'deployments' },
  { verb: 'list', group: 'apps', resource: 'statefulsets' },
  { verb: 'watch', group: 'batch', resource: 'cronjobs' },
  { verb: 'list', group: '', resource: 'replicationcontrollers' },
  // ...and, for any other kind, discovery and its scale subresource.
  { verb: 'get', path: '/apis/argoproj.io/v1alpha1' },
  {
    verb: 'get',
    group: 'argoproj.io',
    resource: 'rollouts',
    subresource: 'scale',
  },
  // Leader election on its own Lease in tandem-system.
  { verb: 'create', ...LEASES, namespace: 'tandem-system' },
  { verb: 'get', ...LEASES, name: LEASE, namespace: 'tandem-system' },
  { verb: 'update', ...LEASES, name: LEASE, namespace: 'tandem-system' },
];
const notNeeded: Access[] = [
  // VPAs and their status are never read one by one, nor replaced.
  { verb: 'get', group: VPA_GROUP, resource: VPAS },
  { verb: 'update', group: VPA_GROUP, resource: VPAS },
  { verb: 'patch', group: VPA_GROUP, resource: VPAS },
  { verb: 'get', group: VPA_GROUP, resource: VPAS, subresource: 'status' },
  { verb: 'update', group: VPA_GROUP, resource: VPAS, subresource: 'status' },
  // Checkpoints are patched or created, never read one by one, watched or replaced.
  { verb: 'get', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'watch', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'update', group: VPA_GROUP, resource: CHECKPOINTS },
  { verb: 'get', group: 'metrics.k8s.io', resource: 'pods' },
  { verb: 'get', group: '', resource: 'pods' },
  { verb: 'delete', group: '', resource: 'pods' },
  { verb: 'create', group: '', resource: 'pods', subresource: 'eviction' },
  { verb: 'get', group: '', resource: 'secrets' },
  { verb: 'list', group: '', resource: 'limitranges' },
  { verb: 'delete', group: '', resource: 'events' },
  { verb: 'update', group: 'apps', resource: 'deployments' },
  // Targets come from caches, never one GET at a time; scale is read, never written.
  { verb: 'get', group: 'apps', resource: 'deployments' },
  { verb: 'get', group: 'batch', resource: 'jobs' },
  { verb: 'get', group: 'argoproj.io', resource: 'rollouts' },
  {
    verb: 'update',
    group: 'apps',
    resource: 'deployments',
    subresource: 'scale',
  },
  // Another component's Lease, a patch of its own, or a Lease elsewhere.
  {
    verb: 'update',
    ...LEASES,
    name: 'vpa-updater',
    namespace: 'tandem-system',
  },
  { verb: 'get', ...LEASES, name: 'vpa-updater', namespace: 'tandem-system' },
  { verb: 'patch', ...LEASES, name: LEASE, namespace: 'tandem-system' },
  { verb: 'delete', ...LEASES, name: LEASE, namespace: 'tandem-system' },
  { verb: 'update', ...LEASES, name: LEASE, namespace: 'kube-system' },
  { verb: 'create', ...LEASES, namespace: 'kube-system' },
];

/**
 * Every rule of deploy/recommender/rbac.yaml, one line per role, API group, resource (and
 * resource names): `<group> <resource>[ named <names>]: <verbs>`, verbs sorted.
 */
function grantedRules(): Record<string, string[]> {
  const granted: Record<string, string[]> = {};
  for (const manifest of manifests) {
    if (manifest.kind !== 'ClusterRole' && manifest.kind !== 'Role') continue;
    const role = `${manifest.kind} ${manifest.metadata?.namespace ? `${manifest.metadata.namespace}/` : ''}${manifest.metadata?.name}`;
    const rules = (manifest as { rules?: V1PolicyRule[] }).rules ?? [];
    granted[role] = rules
      .flatMap((rule) => [
        ...(rule.nonResourceURLs ?? []).map(
          (url) => `non-resource ${url}: ${[...rule.verbs].sort().join(' ')}`,
        ),
        ...(rule.apiGroups ?? []).flatMap((group) =>
          (rule.resources ?? []).map(
            (resource) =>
              `${group || 'core'} ${resource}${rule.resourceNames ? ` named ${rule.resourceNames.join(',')}` : ''}: ${[...rule.verbs].sort().join(' ')}`,
          ),
        ),
      ])
      .sort();
  }
  return granted;
}

/**
 * Exactly the requests the recommender makes (apps/recommender, packages/kube): list+watch
 * caches of VPAs, pods (not Pending), Evicted events and the well-known target kinds; GETs
 * of `/scale` for any other target kind (discovery is system:discovery's); a JSON patch of
 * a VPA's status; checkpoints listed, patched or created, and deleted by the garbage
 * collection; events on VPAs created, and patched when one recurs; one PodMetrics list per cycle; its
 * Lease read, created and replaced.
 */
const EXPECTED_RULES: Record<string, string[]> = {
  'ClusterRole tandem-recommender': [
    '* */scale: get',
    'apps daemonsets: list watch',
    'apps deployments: list watch',
    'apps replicasets: list watch',
    'apps statefulsets: list watch',
    'autoscaling.k8s.io verticalpodautoscalercheckpoints: create delete list patch',
    'autoscaling.k8s.io verticalpodautoscalers/status: patch',
    'autoscaling.k8s.io verticalpodautoscalers: list watch',
    'batch cronjobs: list watch',
    'batch jobs: list watch',
    'core events: create list patch watch',
    'core pods: list watch',
    'core replicationcontrollers: list watch',
    'metrics.k8s.io pods: list',
  ],
  'Role tandem-system/tandem-recommender-leader-election': [
    'coordination.k8s.io leases named vpa-recommender-lease: get update',
    'coordination.k8s.io leases: create',
  ],
};

describe('the recommender RBAC in deploy/recommender (least privilege, checked by the API server)', () => {
  it('grants exactly the requests the recommender makes, no more', () => {
    const sorted = (rules: Record<string, string[]>) =>
      Object.fromEntries(
        Object.entries(rules).map(([role, lines]) => [role, [...lines].sort()]),
      );
    expect(grantedRules()).toEqual(sorted(EXPECTED_RULES));
  });

  it.each(named(needed))('allows what it needs: %s', async (_, access) => {
    expect(await allowed(access)).toBe(true);
  });

  it.each(named(notNeeded))(
    'denies what it does not: %s',
    async (_, access) => {
      expect(await allowed(access)).toBe(false);
    },
  );
});

// The same rules in use: the recommender runs with the ServiceAccount's token, as its
// Deployment does (cluster-wide, leader election in tandem-system), and every request it
// makes on the way to a recommendation, a checkpoint, a GC and an event is allowed.
const describeLocal = isLocalCluster() ? describe : describe.skip;
const POD_NAME = 'tandem-recommender-rbac-e2e';

describeLocal(
  'the recommender under its ServiceAccount (deploy/recommender/rbac.yaml)',
  () => {
    let namespace: string;
    let recommender: RecommenderProcess;
    const vpas = vpaObjects(kube, () => namespace);
    const coordination = kube.config.makeApiClient(CoordinationV1Api);
    const tail = async () => `output tail:\n${recommender.tail(15)}`;

    beforeAll(async () => {
      namespace = currentNamespace();
      await installTandemCrds(kube);
      for (const name of ['steady', 'corrupt']) {
        await runDeployment(kube, namespace, {
          name,
          replicas: 1,
          cpuRequest: '100m',
          memoryRequest: '128Mi',
          initialUsage: { cpu: '50m', memory: '64Mi' },
        });
        await vpas.createVpa(name, name);
      }
      // Unreadable history for VPA corrupt (a Warning event, then the checkpoint is patched),
      // and a checkpoint whose VPA is gone (deleted by the garbage collection).
      await vpas.createCheckpoint(
        'corrupt-app',
        { vpaObjectName: 'corrupt', containerName: 'app' },
        {
          version: 'v3',
          cpuHistogram: { bucketWeights: { '9999': 10000 }, totalWeight: 1 },
        },
      );
      await vpas.createCheckpoint('gone-app', {
        vpaObjectName: 'gone',
        containerName: 'app',
      });

      const token = (
        await kube.core.createNamespacedServiceAccountToken({
          namespace: 'tandem-system',
          name: 'tandem-recommender',
          body: { spec: { audiences: [], expirationSeconds: 3600 } },
        })
      ).status?.token;
      if (token === undefined)
        throw new Error('no token for ServiceAccount tandem-recommender');
      const kubeconfig = join(
        mkdtempSync(join(tmpdir(), 'tandem-rbac-')),
        'kubeconfig',
      );
      writeFileSync(
        kubeconfig,
        tokenKubeConfig(kube.config, token).exportConfig(),
      );
      recommender = await startRecommender({
        kubeconfig,
        intervalSeconds: 5,
        extraArgs: [
          '--leader-elect=true',
          '--leader-elect-resource-namespace=tandem-system',
          '--checkpoints-gc-interval=1s',
        ],
        env: { POD_NAME },
      });
    });
    afterAll(async () => {
      await stopAllApps();
    });

    it('takes the lead through its Lease in tandem-system', async () => {
      await waitFor(
        `Lease tandem-system/${LEASE} held by ${POD_NAME}`,
        async () => {
          const lease = await coordination.readNamespacedLease({
            name: LEASE,
            namespace: 'tandem-system',
          });
          return lease.spec?.holderIdentity === POD_NAME ? true : undefined;
        },
        { timeoutMs: 60_000 },
        tail,
      );
    });

    it('recommends, writes and collects checkpoints, and records an event', async () => {
      await vpas.waitForRecommendation('steady', 'a recommendation', {
        context: () => recommender.tail(15),
      });
      await vpas.waitForRecommendation('corrupt', 'a recommendation', {
        context: () => recommender.tail(15),
      });
      // A Warning event for corrupt-app; checkpoints created (steady-app did not exist),
      // patched (corrupt-app did) and deleted (gone-app's VPA does not exist).
      const written = (checkpoint: Checkpoint | undefined) =>
        checkpoint?.status?.lastUpdateTime ? checkpoint : undefined;
      const steps: [string, () => Promise<unknown>][] = [
        [
          'a CheckpointCorrupt Warning event on VPA corrupt',
          async () =>
            (
              await kube.core.listNamespacedEvent({
                namespace,
                fieldSelector: 'reason=CheckpointCorrupt,type=Warning',
              })
            ).items[0],
        ],
        [
          'checkpoint steady-app to be created',
          async () => written(await vpas.readCheckpoint('steady-app')),
        ],
        [
          'checkpoint corrupt-app to be rewritten',
          async () => written(await vpas.readCheckpoint('corrupt-app')),
        ],
        [
          'the orphaned checkpoint gone-app to be deleted',
          async () =>
            (await vpas.readCheckpoint('gone-app')) === undefined || undefined,
        ],
      ];
      for (const [description, probe] of steps)
        await waitFor(description, probe, { timeoutMs: 60_000 }, tail);
      expect((await httpGet(`${recommender.url}/readyz`)).status).toBe(200);
    });

    it('is never forbidden anything, and stops cleanly', async () => {
      expect(await recommender.stop()).toBe(0);
      expect(
        recommender
          .logs()
          .split('\n')
          .filter((line) => /forbidden|\b403\b/i.test(line))
          // The API server also answers 403 to a write into a namespace being deleted:
          // another suite's, on this shared cluster. That is no RBAC denial.
          .filter((line) => !/because it is being terminated/.test(line)),
      ).toEqual([]);
    });
  },
);
