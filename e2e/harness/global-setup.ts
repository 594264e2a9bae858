import { readFileSync } from 'node:fs';
import { CLUSTER_ENV } from './cluster-env.ts';
import { parseEnvLines, requireEnvValue } from './env-file.ts';
import {
  startLocalControlPlane,
  type LocalControlPlane,
} from './local-control-plane.ts';

declare global {
  var tandemLocalControlPlane: LocalControlPlane | undefined;
}

/**
 * Provides one cluster for the whole run: the one KUBECONFIG names (kind, CI, a real
 * cluster), or else a local control plane started now and stopped in global teardown. A
 * KUBECONFIG with `TANDEM_E2E_CLUSTER_ENV_FILE` (the `--env-file` of a control plane left
 * running by e2e/control-plane/start.sh) is that local control plane, reused and kept.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[CLUSTER_ENV.kubeconfig]) {
    const envFile = process.env[CLUSTER_ENV.envFile];
    if (envFile) {
      process.env[CLUSTER_ENV.kind] = 'local';
      process.env[CLUSTER_ENV.logDir] ??= requireEnvValue(
        parseEnvLines(readFileSync(envFile, 'utf8')),
        'TANDEM_CP_LOG_DIR',
      );
    } else process.env[CLUSTER_ENV.kind] = 'external';
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
