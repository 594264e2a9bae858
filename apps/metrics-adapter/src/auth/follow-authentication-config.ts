import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  describeError,
  kubeGetJson,
  watchedCollection,
  type KubeConnection,
} from '@tandem/kube';
import type { Logger } from 'pino';
import {
  AUTHENTICATION_CONFIGMAP,
  parseAuthenticationConfig,
  type RequestHeaderConfig,
} from './authentication-config.js';

export interface FollowAuthenticationConfigOptions {
  connection: KubeConnection;
  logger: Logger;
  /**
   * Called with the first configuration read and with each one that differs from the
   * last (kube-apiserver rewrites the ConfigMap when its CAs rotate). A throw is reported
   * and the same configuration is offered again on the next change of the ConfigMap.
   */
  onChange: (config: RequestHeaderConfig) => void;
  /**
   * Every problem, already logged here: list/watch failures (retried with backoff), a
   * ConfigMap that does not parse (the last good configuration stays), a throwing
   * `onChange`. For counting and health.
   */
  onError: (error: unknown) => void;
}

/**
 * Follows kube-system/extension-apiserver-authentication with a list+watch restricted to
 * that one name (the adapter's Role grants it nothing else in kube-system). Until the
 * first good configuration, `synced()` is false and front-proxy requests cannot be
 * authenticated.
 */
export function followAuthenticationConfig(
  options: FollowAuthenticationConfigOptions,
): { synced(): boolean; stop(): Promise<void> } {
  const { connection, logger } = options;
  const { namespace, name } = AUTHENTICATION_CONFIGMAP;
  const where = `${namespace}/${name}`;
  const report = (error: unknown, what: string) => {
    logger.warn({ configMap: where }, `${what}: ${describeError(error)}`);
    options.onError(error);
  };
  const cache = watchedCollection<V1ConfigMap>({
    connection,
    get: kubeGetJson(connection),
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    fieldSelector: `metadata.name=${name}`,
    onError: (error) =>
      report(error, 'following the authentication ConfigMap failed'),
  });

  // What was last handed to onChange, compared by value: a resync or an unrelated
  // metadata change must not make the app rewrite its CA file.
  let applied: string | undefined;
  const apply = (configMap: V1ConfigMap) => {
    const config = parseAuthenticationConfig(configMap.data);
    if (config instanceof Error) {
      report(config, 'ignoring the authentication ConfigMap, keeping the last');
      return;
    }
    const fingerprint = JSON.stringify(config);
    if (fingerprint === applied) return;
    try {
      options.onChange(config);
    } catch (error) {
      report(error, 'applying the authentication configuration failed');
      return;
    }
    logger.info(
      {
        configMap: where,
        frontProxyCa: config.requestheaderCaPem !== undefined,
        allowedNames: config.allowedNames,
        usernameHeaders: config.usernameHeaders,
      },
      applied === undefined
        ? 'Authentication configuration loaded'
        : 'Authentication configuration changed',
    );
    applied = fingerprint;
  };
  cache.onEvent((event) => {
    if (event.type === 'delete')
      logger.warn(
        { configMap: where },
        'The authentication ConfigMap was deleted; keeping the last configuration',
      );
    else apply(event.object);
  });
  cache.start().then(
    () => {
      if (cache.list().length === 0)
        logger.warn(
          { configMap: where },
          'The authentication ConfigMap does not exist (is this cluster aggregating APIs?); front-proxy requests are refused until it appears',
        );
    },
    // Rejects only when stopped before the first list.
    () => undefined,
  );
  return {
    synced: () => applied !== undefined,
    stop: () => cache.stop(),
  };
}
