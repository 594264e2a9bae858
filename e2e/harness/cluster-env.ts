import { readFileSync } from 'node:fs';
import { parseEnvLines, requireEnvValue } from './env-file.ts';

/**
 * How the suites find their cluster: the Jest global setup publishes it through these
 * environment variables, which the test workers inherit.
 */
export const CLUSTER_ENV = {
  /** Standard: any cluster (kind, a real one) when set before the run; else the local one. */
  kubeconfig: 'KUBECONFIG',
  /** Directory of component logs, printed when a test fails; only for the local cluster. */
  logDir: 'TANDEM_E2E_LOG_DIR',
  /** `local` or `external`: some checks (e.g. simulated OOMs) need the local kwok stages. */
  kind: 'TANDEM_E2E_CLUSTER',
  /**
   * The local control plane's KEY=VALUE file (ports, certificates). Its values are read
   * from the file rather than copied into the environment, where they would leak into
   * every process a test starts, including a second control plane.
   */
  envFile: 'TANDEM_E2E_CLUSTER_ENV_FILE',
  /**
   * `installed` when the platform runs in the cluster, put there by `kubectl apply -k
   * deploy/` (e2e/kind/platform.sh): the suites that exercise it as installed then run.
   */
  platform: 'TANDEM_E2E_PLATFORM',
} as const;

/** True when the suites run on the local control plane (host processes are reachable). */
export function isLocalCluster(): boolean {
  return process.env[CLUSTER_ENV.kind] === 'local';
}

/** True when the platform runs in the cluster, installed from deploy/ as a user does. */
export function isInstalledPlatform(): boolean {
  return process.env[CLUSTER_ENV.platform] === 'installed';
}

/** A value the local control plane reported (e.g. TANDEM_CP_CA_CERT), or an error naming it. */
export function controlPlaneValue(key: string): string {
  const envFile = process.env[CLUSTER_ENV.envFile];
  if (envFile === undefined || envFile === '')
    throw new Error(`${key} needs the local control plane`);
  return requireEnvValue(parseEnvLines(readFileSync(envFile, 'utf8')), key);
}

export function clusterKubeconfig(): string {
  const kubeconfig = process.env[CLUSTER_ENV.kubeconfig];
  if (kubeconfig === undefined || kubeconfig === '') {
    throw new Error(
      'no KUBECONFIG: run the suites through `nx test e2e`, whose global setup provides a cluster',
    );
  }
  return kubeconfig;
}
