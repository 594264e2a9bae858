import { KubeConfig } from '@kubernetes/client-node';
import { delimiter } from 'node:path';
import {
  resolveKubeConfigSource,
  SERVICE_ACCOUNT_DIR,
  type LoadKubeConfigOptions,
} from './kubeconfig-source.js';

/**
 * Loads a KubeConfig from the first source that applies (see resolveKubeConfigSource),
 * selects `context` if given, and checks that the current context names a cluster.
 */
export function loadKubeConfig(
  options: LoadKubeConfigOptions = {},
): KubeConfig {
  const source = resolveKubeConfigSource(options);
  const config = new KubeConfig();
  let where: string;
  if (source.kind === 'in-cluster') {
    // loadFromCluster reads `${prefix}/var/run/secrets/kubernetes.io/serviceaccount/...`.
    const prefix = source.serviceAccountDir.endsWith(SERVICE_ACCOUNT_DIR)
      ? source.serviceAccountDir.slice(0, -SERVICE_ACCOUNT_DIR.length)
      : undefined;
    if (prefix === undefined)
      throw new Error(
        `serviceAccountDir must end with ${SERVICE_ACCOUNT_DIR}, got ${source.serviceAccountDir}`,
      );
    config.loadFromCluster(prefix);
    where = 'the in-cluster service account';
  } else {
    where = `${source.paths.join(delimiter)} (${source.origin})`;
    const [first, ...rest] = source.paths;
    try {
      config.loadFromFile(first as string);
      for (const path of rest) {
        const other = new KubeConfig();
        other.loadFromFile(path);
        config.mergeConfig(other, true);
      }
    } catch (error) {
      throw new Error(
        `cannot load kubeconfig ${where}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  if (options.context !== undefined && options.context !== '') {
    if (config.getContextObject(options.context) === null) {
      const known = config.getContexts().map((c) => c.name);
      throw new Error(
        `context ${options.context} is not in ${where}; known contexts: ${known.join(', ') || 'none'}`,
      );
    }
    config.setCurrentContext(options.context);
  }
  if (config.getCurrentCluster() === null)
    throw new Error(
      `the current context (${config.getCurrentContext() || 'none'}) of ${where} names no cluster`,
    );
  return config;
}
