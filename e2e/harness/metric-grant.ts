import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeClients } from './kube.ts';

/**
 * A Role and RoleBinding, both named after `serviceAccount`, that let it `get` the
 * `custom.metrics.k8s.io` resources given (e.g. `pods/cpu_usage`) in `namespace` and
 * nothing else: the reader a test refuses everything else to.
 */
export async function grantMetricRead(
  kube: KubeClients,
  namespace: string,
  serviceAccount: string,
  resources: string[],
): Promise<void> {
  const rbac = kube.config.makeApiClient(RbacAuthorizationV1Api);
  const name = serviceAccount;
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name },
      rules: [
        { apiGroups: ['custom.metrics.k8s.io'], resources, verbs: ['get'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
    },
  });
}
