import { VPA_API_GROUP } from '@tandem/vpa-api';

/** Upstream's names, which manifests, charts and e2e scripts refer to. */
export const WEBHOOK_CONFIGURATION_NAME = 'vpa-webhook-config';
export const WEBHOOK_NAME = 'vpa.k8s.io';
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * A cluster-scoped object whose deletion takes the configuration with it: Kubernetes' garbage
 * collector deletes a dependent once its owner is gone (ADR 0019).
 */
export interface WebhookConfigurationOwner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

export interface WebhookRegistrationOptions {
  /** The CA that signed the webhook's serving certificate (`--client-ca-file`), PEM. */
  caBundlePem: string;
  /** `--webhook-timeout-seconds` (30). */
  timeoutSeconds: number;
  /** `--webhook-failure-policy-fail`: Fail instead of Ignore. */
  failurePolicyFail: boolean;
  /** `--webhook-labels`, parsed (see `parseWebhookLabels`). */
  labels: Record<string, string>;
  /** `--ignored-vpa-object-namespaces`, split on commas (an empty flag gives `[""]`). */
  ignoredNamespaces: string[];
  /**
   * `--vpa-object-namespace`. Kept for parity only: like upstream it never takes effect,
   * because the ignored list is never empty (see `webhookConfiguration`).
   */
  objectNamespace?: string;
  /** Service (`$NAMESPACE`/`--webhook-service`) or, with `--register-by-url`, a URL. */
  client:
    | { service: { namespace: string; name: string; port?: number } }
    | { url: string };
  /**
   * Tandem's (`--webhook-owner-cluster-role`): the configuration's one owner reference, so it
   * goes when the install that made it is removed; upstream sets none.
   */
  owner?: WebhookConfigurationOwner;
}

/**
 * The MutatingWebhookConfiguration upstream's admission controller registers for itself
 * (`admissionregistration.k8s.io/v1`, `vpa-webhook-config`, webhook `vpa.k8s.io`): pods on
 * CREATE, VPAs of any version on CREATE and UPDATE.
 *
 * The namespace selector copies upstream's quirk: the ignored-namespaces flag is split on
 * commas before the emptiness check, and `"".split(",")` is `[""]`, so the selector is always
 * `kubernetes.io/metadata.name NotIn [...]` — `NotIn [""]` when nothing is ignored, which
 * matches every namespace — and `objectNamespace` is never used. An empty list is treated as
 * that `[""]`. matchPolicy and reinvocationPolicy are the API server's defaults, made explicit.
 */
export function webhookConfiguration(
  options: WebhookRegistrationOptions,
): object {
  const ignored =
    options.ignoredNamespaces.length > 0
      ? [...options.ignoredNamespaces]
      : [''];
  const clientConfig =
    'url' in options.client
      ? { url: options.client.url }
      : {
          service: {
            namespace: options.client.service.namespace,
            name: options.client.service.name,
            path: '/',
            ...(options.client.service.port !== undefined && {
              port: options.client.service.port,
            }),
          },
        };
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: {
      name: WEBHOOK_CONFIGURATION_NAME,
      ...(Object.keys(options.labels).length > 0 && {
        labels: { ...options.labels },
      }),
      // Neither `controller` (the owner does not manage it) nor `blockOwnerDeletion` (only
      // foreground deletion waits on it, and setting it needs `update` on the owner's
      // finalizers, a right the webhook has no other use for).
      ...(options.owner !== undefined && {
        ownerReferences: [{ ...options.owner }],
      }),
    },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['pods'],
          },
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: [VPA_API_GROUP],
            apiVersions: ['*'],
            resources: ['verticalpodautoscalers'],
          },
        ],
        clientConfig: {
          ...clientConfig,
          caBundle: Buffer.from(options.caBundlePem, 'utf8').toString('base64'),
        },
        sideEffects: 'None',
        failurePolicy: options.failurePolicyFail ? 'Fail' : 'Ignore',
        timeoutSeconds: options.timeoutSeconds,
        namespaceSelector: {
          matchExpressions: [
            { key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ignored },
          ],
        },
        matchPolicy: 'Equivalent',
        reinvocationPolicy: 'Never',
      },
    ],
  };
}
