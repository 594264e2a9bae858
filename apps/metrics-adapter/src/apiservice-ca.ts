import { ApiregistrationV1Api, type KubeConfig } from '@kubernetes/client-node';
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
  kubeConfig: KubeConfig,
  ownHost: string,
  onRoutedElsewhere: (name: string, spec: ApiServiceRoute) => void,
): (caPem: string) => Promise<string[]> {
  const api = kubeConfig.makeApiClient(ApiregistrationV1Api);
  return async (caPem) => {
    const caBundle = Buffer.from(caPem).toString('base64');
    const patched: string[] = [];
    for (const name of API_SERVICE_NAMES) {
      const current = await api.readAPIService({ name });
      if (isRoutedElsewhere(current.spec, ownHost)) {
        onRoutedElsewhere(name, current.spec ?? {});
        continue;
      }
      if (current.spec?.caBundle === caBundle) continue;
      await api.patchAPIService({
        name,
        body: [{ op: 'add', path: '/spec/caBundle', value: caBundle }],
      });
      patched.push(name);
    }
    return patched;
  };
}
