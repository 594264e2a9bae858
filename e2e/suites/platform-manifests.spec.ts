import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import {
  clusterKubeconfig,
  controlPlaneValue,
  isLocalCluster,
} from '../harness/cluster-env.ts';
import { kubeClients } from '../harness/kube.ts';
import { DEPLOY_DIR, installTandemCrds } from '../harness/manifests.ts';

const run = promisify(execFile);
const kube = kubeClients();

async function kubectl(...args: string[]): Promise<string> {
  const binary = isLocalCluster()
    ? controlPlaneValue('TANDEM_CP_KUBECTL')
    : 'kubectl';
  const { stdout } = await run(binary, [
    `--kubeconfig=${clusterKubeconfig()}`,
    ...args,
  ]);
  return stdout;
}

/** Each `<kind>.<group>/<name>` must be reported as accepted by the server dry run. */
function expectAccepted(stdout: string, objects: string[]): void {
  for (const object of objects)
    expect(stdout).toMatch(
      new RegExp(
        `^${object.replaceAll('.', '\\.')} (created|configured|unchanged) \\(server dry run\\)$`,
        'm',
      ),
    );
}

/**
 * The manifest files below `directory` (relative to deploy/), leaving out kustomizations
 * and the folders that are kustomizations of their own (the cert-manager component).
 */
function manifestFiles(directory = DEPLOY_DIR): string[] {
  const entries = readdirSync(directory, { withFileTypes: true });
  if (
    directory !== DEPLOY_DIR &&
    entries.some((entry) => entry.name === 'kustomization.yaml')
  )
    return [];
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return manifestFiles(path);
    return entry.name.endsWith('.yaml') && entry.name !== 'kustomization.yaml'
      ? [relative(DEPLOY_DIR, path)]
      : [];
  });
}

const kustomization = loadAllYaml(
  readFileSync(join(DEPLOY_DIR, 'kustomization.yaml'), 'utf8'),
)[0] as { resources: string[] };

describe('the manifests in deploy/ (kubectl apply, server-side dry run)', () => {
  // The namespace for real, from its manifest, as the first thing an install applies; the
  // CRDs too (the suites share them). A dry run persists nothing, so without them the
  // namespaced objects would find no namespace.
  beforeAll(async () => {
    expect(
      await kubectl('apply', '-f', join(DEPLOY_DIR, 'namespace.yaml')),
    ).toMatch(/^namespace\/tandem-system (created|configured|unchanged)$/m);
    await installTandemCrds(kube);
  });

  it('has one kustomization of every manifest, deploy/namespace.yaml first', () => {
    expect(kustomization.resources[0]).toBe('namespace.yaml');
    expect([...kustomization.resources].sort()).toEqual(manifestFiles().sort());
    // Only namespace.yaml creates the namespace.
    const namespaces = manifestFiles().filter((file) =>
      (
        loadAllYaml(
          readFileSync(join(DEPLOY_DIR, file), 'utf8'),
        ) as KubernetesObject[]
      ).some((object) => object?.kind === 'Namespace'),
    );
    expect(namespaces).toEqual(['namespace.yaml']);
  });

  it('the whole platform (kubectl apply -k deploy/) is accepted, the namespace first', async () => {
    const stdout = await kubectl('apply', '-k', DEPLOY_DIR, '--dry-run=server');
    expect(stdout.split('\n')[0]).toMatch(/^namespace\/tandem-system /);
    expectAccepted(stdout, [
      'namespace/tandem-system',
      'customresourcedefinition.apiextensions.k8s.io/verticalpodautoscalers.autoscaling.k8s.io',
      'customresourcedefinition.apiextensions.k8s.io/verticalpodautoscalercheckpoints.autoscaling.k8s.io',
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
    ]);
  });

  it('the recommender on its own (kubectl apply -f deploy/recommender/) is accepted', async () => {
    const stdout = await kubectl(
      'apply',
      '-f',
      join(DEPLOY_DIR, 'recommender'),
      '--dry-run=server',
    );
    expectAccepted(stdout, [
      'serviceaccount/tandem-recommender',
      'clusterrole.rbac.authorization.k8s.io/tandem-recommender',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-recommender',
      'role.rbac.authorization.k8s.io/tandem-recommender-leader-election',
      'rolebinding.rbac.authorization.k8s.io/tandem-recommender-leader-election',
      'deployment.apps/tandem-recommender',
      'service/tandem-recommender-metrics',
    ]);
    // Nothing but the recommender's own objects: no namespace or CRD of its own.
    expect(stdout.trim().split('\n')).toHaveLength(7);
  });
});
