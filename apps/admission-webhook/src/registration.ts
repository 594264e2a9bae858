import {
  AdmissionregistrationV1Api,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1MutatingWebhookConfiguration,
} from '@kubernetes/client-node';
import {
  webhookConfiguration,
  type WebhookRegistrationOptions,
} from '@tandem/admission';
import { httpStatusOf } from '@tandem/kube';
import type { WebhookFlags } from './flags.js';
import {
  clusterRoleOwner,
  type RegistrationOwnerOptions,
} from './registration-owner.js';

/** Upstream's names, so its tooling finds the configuration. */
export const WEBHOOK_CONFIGURATION_NAME = 'vpa-webhook-config';

/**
 * Where the API server reaches this webhook: upstream's URL form is
 * `<--webhook-address>:<--webhook-port>` (https:// added when the address has no scheme;
 * without `--webhook-port`, the port the server bound, so `--port=0` works on a shared
 * host); otherwise the Service `$NAMESPACE/<--webhook-service>`.
 */
export function webhookClient(
  flags: Pick<
    WebhookFlags,
    'registerByUrl' | 'webhookAddress' | 'webhookPort' | 'webhookService'
  >,
  namespace: string,
  boundPort: number,
): WebhookRegistrationOptions['client'] {
  if (!flags.registerByUrl)
    return { service: { namespace, name: flags.webhookService } };
  const base = /^https:\/\//.test(flags.webhookAddress)
    ? flags.webhookAddress
    : `https://${flags.webhookAddress}`;
  return { url: `${base}:${flags.webhookPort || boundPort}` };
}

export interface WebhookRegistrar {
  /**
   * Deletes and recreates the configuration, as upstream's self-registration does, owned by
   * `--webhook-owner-cluster-role` when that ClusterRole can be read.
   */
  register(caBundlePem: string): Promise<void>;
  /** Patches the CA bundle of the registered webhook when it differs; true when patched. */
  updateCaBundle(caBundlePem: string): Promise<boolean>;
  /** Deletes the configuration (tests and `--register-webhook` clean-up); absent is fine. */
  unregister(): Promise<void>;
}

export function webhookRegistrar(
  kubeConfig: KubeConfig,
  options: Omit<WebhookRegistrationOptions, 'caBundlePem' | 'owner'>,
  ownerOptions: RegistrationOwnerOptions,
): WebhookRegistrar {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const name = WEBHOOK_CONFIGURATION_NAME;
  const unregister = async () => {
    try {
      await api.deleteMutatingWebhookConfiguration({ name });
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
    }
  };
  return {
    async register(caBundlePem) {
      const owner = await clusterRoleOwner(
        (clusterRole) => rbac.readClusterRole({ name: clusterRole }),
        ownerOptions,
      );
      await unregister();
      await api.createMutatingWebhookConfiguration({
        body: webhookConfiguration({
          ...options,
          caBundlePem,
          owner,
        }) as V1MutatingWebhookConfiguration,
      });
    },
    async updateCaBundle(caBundlePem) {
      const current = await api.readMutatingWebhookConfiguration({ name });
      const caBundle = Buffer.from(caBundlePem).toString('base64');
      const webhook = current.webhooks?.[0];
      if (webhook === undefined || webhook.clientConfig.caBundle === caBundle)
        return false;
      await api.patchMutatingWebhookConfiguration({
        name,
        body: [
          {
            op: 'replace',
            path: '/webhooks/0/clientConfig/caBundle',
            value: caBundle,
          },
        ],
      });
      return true;
    },
    unregister,
  };
}
