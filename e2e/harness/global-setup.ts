import { CLUSTER_ENV } from './cluster-env.ts';
import {
  startLocalControlPlane,
  type LocalControlPlane,
} from './local-control-plane.ts';

declare global {
  var tandemLocalControlPlane: LocalControlPlane | undefined;
}

/**
 * Provides one cluster for the whole run: the one KUBECONFIG names (kind, CI, a real
 * cluster), or else a local control plane started now and stopped in global teardown.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[CLUSTER_ENV.kubeconfig]) {
    process.env[CLUSTER_ENV.kind] = 'external';
    process.stderr.write(
      `\n[e2e] using the cluster of KUBECONFIG=${process.env[CLUSTER_ENV.kubeconfig]}\n`,
    );
    return;
  }
  process.stderr.write(
    '\n[e2e] starting the local control plane (e2e/control-plane)\n',
  );
  const controlPlane = await startLocalControlPlane();
  globalThis.tandemLocalControlPlane = controlPlane;
  process.env[CLUSTER_ENV.envFile] = controlPlane.envFile;
  process.env[CLUSTER_ENV.kubeconfig] = controlPlane.kubeconfig;
  process.env[CLUSTER_ENV.logDir] = controlPlane.logDir;
  process.env[CLUSTER_ENV.kind] = 'local';
}
