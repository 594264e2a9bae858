import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where the service account is mounted in a pod. */
export const SERVICE_ACCOUNT_DIR =
  '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadKubeConfigOptions {
  /** An explicit kubeconfig file; wins over everything else and must exist. */
  kubeconfigPath?: string;
  /** A context of the loaded kubeconfig to use instead of its current-context. */
  context?: string;
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Defaults to os.homedir(). */
  homeDir?: string;
  /** Defaults to SERVICE_ACCOUNT_DIR; a test may point it elsewhere. */
  serviceAccountDir?: string;
}

/** Where a kubeconfig comes from, decided before anything is read. */
export type KubeConfigSource =
  | {
      kind: 'files';
      origin: 'explicit' | 'KUBECONFIG' | 'home';
      paths: string[];
    }
  | { kind: 'in-cluster'; serviceAccountDir: string };

/**
 * Decides the kubeconfig source: explicit path > `KUBECONFIG` (a path list; files that
 * exist are merged, the first one wins on conflicts) > in-cluster service account
 * (`KUBERNETES_SERVICE_HOST`/`_PORT` set and a token mounted) > `~/.kube/config`.
 * Throws an error listing everything that was tried when nothing applies.
 */
export function resolveKubeConfigSource(
  options: LoadKubeConfigOptions,
  exists: (path: string) => boolean = existsSync,
): KubeConfigSource {
  const env = options.env ?? process.env;
  const tried: string[] = [];
  if (options.kubeconfigPath !== undefined && options.kubeconfigPath !== '') {
    if (!exists(options.kubeconfigPath))
      throw new Error(
        `kubeconfig file ${options.kubeconfigPath} (given explicitly) does not exist`,
      );
    return {
      kind: 'files',
      origin: 'explicit',
      paths: [options.kubeconfigPath],
    };
  }
  const fromEnv = env['KUBECONFIG'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const listed = fromEnv.split(delimiter).filter((p) => p !== '');
    const paths = listed.filter((p) => exists(p));
    if (paths.length > 0) return { kind: 'files', origin: 'KUBECONFIG', paths };
    throw new Error(
      `KUBECONFIG is set to ${fromEnv} but none of its files exists`,
    );
  }
  tried.push('KUBECONFIG (not set)');
  const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  const token = join(serviceAccountDir, 'token');
  if (host && port && exists(token))
    return { kind: 'in-cluster', serviceAccountDir };
  tried.push(
    host && port
      ? `in-cluster (no service account token at ${token})`
      : 'in-cluster (KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT not set)',
  );
  const home = join(options.homeDir ?? homedir(), '.kube', 'config');
  if (exists(home)) return { kind: 'files', origin: 'home', paths: [home] };
  tried.push(`${home} (does not exist)`);
  throw new Error(
    `no Kubernetes configuration found; tried: ${tried.join('; ')}`,
  );
}
