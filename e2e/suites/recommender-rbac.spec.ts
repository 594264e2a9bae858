import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { httpStatusOf, kubeClients } from '../harness/kube.ts';
import { DEPLOY_DIR } from '../harness/manifests.ts';

const kube = kubeClients();
const objects = kube.config.makeApiClient(KubernetesObjectApi);
const authorization = kube.config.makeApiClient(AuthorizationV1Api);
const SERVICE_ACCOUNT =
  'system:serviceaccount:tandem-system:tandem-recommender';

interface ResourceAccess {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
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
      : `${access.verb} ${access.group || 'core'}/${access.resource}${access.subresource ? `/${access.subresource}` : ''} in ${access.namespace ?? 'default'}`,
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

beforeAll(async () => {
  const manifests = loadAllYaml(
    readFileSync(join(DEPLOY_DIR, 'recommender', 'rbac.yaml'), 'utf8'),
  ) as KubernetesObject[];
  for (const manifest of manifests) {
    try {
      await objects.create(manifest);
    } catch (error) {
      if (httpStatusOf(error) !== 409) throw error;
    }
  }
});

const needed: Access[] = [
  { verb: 'watch', group: '', resource: 'pods' },
  { verb: 'watch', group: '', resource: 'events' },
  { verb: 'create', group: '', resource: 'events' },
  {
    verb: 'list',
    group: 'autoscaling.k8s.io',
    resource: 'verticalpodautoscalers',
  },
  {
    verb: 'patch',
    group: 'autoscaling.k8s.io',
    resource: 'verticalpodautoscalers',
    subresource: 'status',
  },
  {
    verb: 'create',
    group: 'autoscaling.k8s.io',
    resource: 'verticalpodautoscalercheckpoints',
  },
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
  {
    verb: 'update',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'tandem-system',
  },
];
const notNeeded: Access[] = [
  {
    verb: 'update',
    group: 'autoscaling.k8s.io',
    resource: 'verticalpodautoscalers',
  },
  { verb: 'delete', group: '', resource: 'pods' },
  { verb: 'create', group: '', resource: 'pods', subresource: 'eviction' },
  { verb: 'get', group: '', resource: 'secrets' },
  { verb: 'list', group: '', resource: 'limitranges' },
  { verb: 'patch', group: '', resource: 'events' },
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
  {
    verb: 'update',
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace: 'kube-system',
  },
];

describe('the recommender RBAC in deploy/recommender (least privilege, checked by the API server)', () => {
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
