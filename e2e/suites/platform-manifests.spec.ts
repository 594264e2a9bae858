import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  clusterKubeconfig,
  controlPlaneValue,
  isLocalCluster,
} from '../harness/cluster-env.ts';
import { httpStatusOf, kubeClients } from '../harness/kube.ts';
import { DEPLOY_DIR } from '../harness/manifests.ts';

const run = promisify(execFile);
const kube = kubeClients();

describe('the whole platform in deploy/ (kubectl apply -k, server-side dry run)', () => {
  it('is accepted by the API server', async () => {
    await kube.core
      .createNamespace({ body: { metadata: { name: 'tandem-system' } } })
      .catch((error: unknown) => {
        if (httpStatusOf(error) !== 409) throw error;
      });
    const kubectl = isLocalCluster()
      ? controlPlaneValue('TANDEM_CP_KUBECTL')
      : 'kubectl';
    const { stdout } = await run(kubectl, [
      `--kubeconfig=${clusterKubeconfig()}`,
      'apply',
      '-k',
      DEPLOY_DIR,
      '--dry-run=server',
    ]);
    for (const object of [
      'deployment.apps/tandem-recommender',
      'deployment.apps/tandem-admission-webhook',
      'deployment.apps/tandem-updater',
      'clusterrole.rbac.authorization.k8s.io/tandem-updater',
      'role.rbac.authorization.k8s.io/tandem-updater',
      'service/tandem-updater-metrics',
      'poddisruptionbudget.policy/tandem-updater',
      'deployment.apps/tandem-metrics-adapter',
      'apiservice.apiregistration.k8s.io/v1beta2.custom.metrics.k8s.io',
      'apiservice.apiregistration.k8s.io/v1beta1.custom.metrics.k8s.io',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-hpa-controller-custom-metrics',
    ])
      expect(stdout).toMatch(
        new RegExp(
          `${object.replaceAll('.', '\\.')} (created|configured|unchanged) \\(server dry run\\)`,
        ),
      );
  });
});
