import { parseArgs } from 'node:util';
import {
  FlagError,
  goStyleArgs,
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  parseAddress,
  parseDuration,
  parseFeatureGates,
  parseKubeApiRate,
  parseListPageSize,
  parseNumberIn,
  parsePositiveInteger,
  verbosityLogLevel,
  type ListenAddress,
  parseNamespaceFilter,
  type KubeApiRateFlags,
} from '@tandem/flags';
import { parseWebhookLabels } from '@tandem/admission';
import { DEFAULT_LIST_PAGE_SIZE } from '@tandem/kube';
import {
  certificateFlagOptions,
  parseCertificateFlags,
  type CertificateManagement,
} from '@tandem/serving';
import {
  parseQuantity,
  type FeatureGates,
  type Quantity,
} from '@tandem/vpa-api';

/** The webhook's settings: upstream's admission-controller flags, names and defaults. */
export interface WebhookFlags extends KubeApiRateFlags {
  kubeconfig: string | undefined;
  clientCaFile: string;
  /** `--certs-secret` and the rest: with a Secret, the certificate files are made in-process. */
  certificates: CertificateManagement;
  tlsCertFile: string;
  tlsPrivateKey: string;
  minTlsVersion: 'TLSv1.2' | 'TLSv1.3';
  tlsCiphers: string | undefined;
  /** `--port`: the HTTPS webhook server. */
  port: number;
  /** `--address`: the ops server (/metrics, /healthz, /readyz). */
  address: ListenAddress;
  registerWebhook: boolean;
  registerByUrl: boolean;
  webhookService: string;
  webhookAddress: string;
  webhookPort: string;
  webhookTimeoutSeconds: number;
  webhookFailurePolicyFail: boolean;
  /**
   * `--cache-sync-deadline` (Tandem's): how long a review waits for a cache that has not
   * completed its first list (a target kind met for the first time) before it admits the
   * pod unchanged, with a warning.
   */
  cacheSyncDeadlineMs: number;
  /** `--list-page-size` (Tandem's): objects a list page for the caches; 0: unpaginated. */
  listPageSize: number;
  /** `--webhook-labels k1:v1,k2:v2`: labels of the registered configuration. */
  webhookLabels: Record<string, string>;
  /**
   * `--webhook-owner-cluster-role` (Tandem's): the ClusterRole the registered configuration
   * names as its owner, so deleting the install deletes it too; empty: no owner, as upstream.
   */
  webhookOwnerClusterRole: string;
  statusLeaseName: string;
  /** Empty means `$NAMESPACE`, else kube-system. */
  statusLeaseNamespace: string;
  statusLeaseUpdateIntervalMs: number;
  featureGates: FeatureGates;
  /** `--max-allowed-cpu-boost`: the highest CPU request a startup boost sets; unset: no cap. */
  maxAllowedCpuBoost: Quantity | undefined;
  vpaObjectNamespace: string | undefined;
  ignoredVpaObjectNamespaces: string[];
  verbosityLogLevel: 'info' | 'debug';
  /** klog flags given on the command line, accepted and ignored (one warning). */
  ignoredFlags: string[];
}

/** Upstream's gates (all alpha, off by default). */
const FEATURE_GATES = {
  InPlace: { default: false, implemented: true },
  PerVPAConfig: { default: false, implemented: true },
  CPUStartupBoost: { default: false, implemented: true },
  // Native sidecars admitted and updated like containers (AEP-8905; docs/decisions/0033).
  NativeSidecar: { default: false, implemented: true },
} as const;

/** `--max-allowed-cpu-boost` (upstream's, a quantity; unset or 0: no cap). */
function maxAllowedCpuBoost(text: string): Quantity | undefined {
  if (text === '') return undefined;
  let quantity: Quantity;
  try {
    quantity = parseQuantity(text);
  } catch (error) {
    throw new FlagError(`--max-allowed-cpu-boost: ${(error as Error).message}`);
  }
  if (quantity.sign() < 0)
    throw new FlagError(
      `--max-allowed-cpu-boost must not be negative, got '${text}'`,
    );
  return quantity;
}

const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'reload-cert',
  'register-webhook',
  'register-by-url',
  'webhook-failure-policy-fail',
  'profiling',
  ...KLOG_BOOLEAN_FLAGS,
]);

const TLS_VERSIONS = { tls1_2: 'TLSv1.2', tls1_3: 'TLSv1.3' } as const;

function minTlsVersion(text: string): WebhookFlags['minTlsVersion'] {
  if (text === 'tls1_2' || text === 'tls1_3') return TLS_VERSIONS[text];
  throw new FlagError(
    `--min-tls-version must be tls1_2 or tls1_3, got '${text}'`,
  );
}

/**
 * Upstream's `--tls-ciphers` names Go's cipher suites (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`);
 * Node takes OpenSSL names. The IANA names are passed through as OpenSSL understands them for
 * TLS 1.3 suites; others must already be OpenSSL names.
 */
function tlsCiphers(text: string): string | undefined {
  return text === '' ? undefined : text.split(',').join(':');
}

function webhookLabels(text: string): Record<string, string> {
  try {
    return parseWebhookLabels(text);
  } catch (error) {
    throw new FlagError(`--webhook-labels: ${(error as Error).message}`);
  }
}

export function parseFlags(argv: readonly string[]): WebhookFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: goStyleArgs(argv, BOOLEAN_FLAGS),
      strict: true,
      allowNegative: true,
      options: {
        kubeconfig: { type: 'string' },
        'client-ca-file': {
          type: 'string',
          default: '/etc/tls-certs/caCert.pem',
        },
        'tls-cert-file': {
          type: 'string',
          default: '/etc/tls-certs/serverCert.pem',
        },
        'tls-private-key': {
          type: 'string',
          default: '/etc/tls-certs/serverKey.pem',
        },
        // Tandem always reloads changed certificates; the flag is accepted for manifests.
        'reload-cert': { type: 'boolean', default: false },
        'tls-ciphers': { type: 'string', default: '' },
        'min-tls-version': { type: 'string', default: 'tls1_2' },
        port: { type: 'string', default: '8000' },
        address: { type: 'string', default: ':8944' },
        'webhook-service': { type: 'string', default: 'vpa-webhook' },
        'webhook-address': { type: 'string', default: '' },
        'webhook-port': { type: 'string', default: '' },
        'webhook-timeout-seconds': { type: 'string', default: '30' },
        'webhook-failure-policy-fail': { type: 'boolean', default: false },
        // Well inside the API server's call timeout (--webhook-timeout-seconds, at most 30 s):
        // a review answered late is a pod created late, or refused under failurePolicy Fail.
        'cache-sync-deadline': { type: 'string', default: '250ms' },
        'register-webhook': { type: 'boolean', default: true },
        'webhook-labels': { type: 'string', default: '' },
        'webhook-owner-cluster-role': { type: 'string', default: '' },
        'register-by-url': { type: 'boolean', default: false },
        'status-lease-name': {
          type: 'string',
          default: 'vpa-admission-controller',
        },
        'status-lease-namespace': { type: 'string', default: '' },
        'status-lease-update-interval': { type: 'string', default: '10s' },
        'max-allowed-cpu-boost': { type: 'string', default: '' },
        'feature-gates': { type: 'string', default: '' },
        'vpa-object-namespace': { type: 'string', default: '' },
        'ignored-vpa-object-namespaces': { type: 'string', default: '' },
        // Client-side rate limits: the webhook's only writes are its registration and lease.
        'kube-api-qps': { type: 'string', default: '5' },
        'kube-api-burst': { type: 'string', default: '10' },
        // Tandem's: client-go's pager size for the caches' lists (0: one request each).
        'list-page-size': {
          type: 'string',
          default: String(DEFAULT_LIST_PAGE_SIZE),
        },
        profiling: { type: 'boolean', default: false },
        ...certificateFlagOptions('vpa-webhook'),
        v: { type: 'string', default: '4' },
        ...KLOG_NO_OP_FLAG_OPTIONS,
      },
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  const namespaces = parseNamespaceFilter(
    values['vpa-object-namespace'],
    values['ignored-vpa-object-namespaces'],
  );
  if (values['register-by-url'] && values['webhook-address'] === '')
    throw new FlagError(
      '--register-by-url needs --webhook-address (e.g. https://127.0.0.1)',
    );
  return {
    kubeconfig: values.kubeconfig,
    ...parseKubeApiRate(values['kube-api-qps'], values['kube-api-burst']),
    listPageSize: parseListPageSize(values['list-page-size']),
    clientCaFile: values['client-ca-file'],
    certificates: parseCertificateFlags(values),
    tlsCertFile: values['tls-cert-file'],
    tlsPrivateKey: values['tls-private-key'],
    minTlsVersion: minTlsVersion(values['min-tls-version']),
    tlsCiphers: tlsCiphers(values['tls-ciphers']),
    port: parseAddress(`:${values.port}`, 'port').port,
    address: parseAddress(values.address, 'address'),
    registerWebhook: values['register-webhook'],
    registerByUrl: values['register-by-url'],
    webhookService: values['webhook-service'],
    webhookAddress: values['webhook-address'],
    webhookPort: values['webhook-port'],
    webhookTimeoutSeconds: parsePositiveInteger(
      values['webhook-timeout-seconds'],
      'webhook-timeout-seconds',
    ),
    webhookFailurePolicyFail: values['webhook-failure-policy-fail'],
    cacheSyncDeadlineMs: parseDuration(
      values['cache-sync-deadline'],
      'cache-sync-deadline',
    ),
    webhookLabels: webhookLabels(values['webhook-labels']),
    webhookOwnerClusterRole: values['webhook-owner-cluster-role'],
    statusLeaseName: values['status-lease-name'],
    statusLeaseNamespace: values['status-lease-namespace'],
    statusLeaseUpdateIntervalMs: parseDuration(
      values['status-lease-update-interval'],
      'status-lease-update-interval',
    ),
    featureGates: parseFeatureGates(values['feature-gates'], FEATURE_GATES),
    maxAllowedCpuBoost: maxAllowedCpuBoost(values['max-allowed-cpu-boost']),
    vpaObjectNamespace: namespaces.only,
    ignoredVpaObjectNamespaces: namespaces.ignored,
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    ignoredFlags: ignoredKlogFlags(values),
  };
}

export { FlagError };
