import type { V1APIService } from '@kubernetes/client-node';
import { kubeGetJson, kubeSendJson, type KubeConnection } from '@tandem/kube';
import { isRoutedElsewhere } from './pass-through/apiservice-route.js';
import type { ApiServiceRoute } from './pass-through/apiservice-route.js';

/** The APIServices that route custom.metrics.k8s.io to the adapter (deploy/metrics-adapter). */
export const API_SERVICE_NAMES = [
  'v1beta2.custom.metrics.k8s.io',
  'v1beta1.custom.metrics.k8s.io',
] as const;

/**
 * Writes the CA that signed the serving certificate into the APIServices' caBundle, so the
 * aggregator verifies the adapter without cert-manager; an APIService that does not exist
 * (not installed yet) is skipped and reported. One routed to a Service other than
 * `ownHost` (`<service>.<namespace>.svc`) is another provider's: left alone and passed to
 * `onRoutedElsewhere`, since Tandem's CA there would break that provider (ADR 0022).
 */
export function apiServiceCaBundle(
  connection: KubeConnection,
  ownHost: string,
  onRoutedElsewhere: (name: string, spec: ApiServiceRoute) => void,
): (caPem: string) => Promise<string[]> {
  const get = kubeGetJson(connection);
  const send = kubeSendJson(connection);
  return async (caPem) => {
    const caBundle = Buffer.from(caPem).toString('base64');
    const patched: string[] = [];
    for (const name of API_SERVICE_NAMES) {
      const path = `/apis/apiregistration.k8s.io/v1/apiservices/${name}`;
      const current = (await get(path)) as V1APIService;
      if (isRoutedElsewhere(current.spec, ownHost)) {
        onRoutedElsewhere(name, current.spec ?? {});
        continue;
      }
      if (current.spec?.caBundle === caBundle) continue;
      await send(
        'PATCH',
        path,
        [{ op: 'add', path: '/spec/caBundle', value: caBundle }],
        'application/json-patch+json',
      );
      patched.push(name);
    }
    return patched;
  };
}
