import { parseArgs } from 'node:util';
import {
  FlagError,
  goStyleArgs,
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  parseAddress,
  parseDuration,
  parseListPageSize,
  parseNumberIn,
  verbosityLogLevel,
  type ListenAddress,
} from '@tandem/flags';
import { DEFAULT_LIST_PAGE_SIZE } from '@tandem/kube';
import {
  certificateFlagOptions,
  parseCertificateFlags,
  type CertificateManagement,
} from '@tandem/serving';
import {
  parseUpstreamProvider,
  UPSTREAM_FLAG_OPTIONS,
  type UpstreamProvider,
} from './pass-through/upstream-flags.js';

/** The adapter's settings: the generic API server's flag names where one exists. */
export interface AdapterFlags {
  kubeconfig: string | undefined;
  /** `--secure-port` and `--bind-address`: the HTTPS aggregated API server. */
  secure: ListenAddress;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** `--certs-secret` and the rest: with a Secret, the certificate files are made in-process. */
  certificates: CertificateManagement;
  /** When set, the CA bundle written into the APIServices' caBundle (bootstrap without cert-manager). */
  apiServiceCaFile: string | undefined;
  minTlsVersion: 'TLSv1.2' | 'TLSv1.3';
  /** `--address`: the plain ops server (/metrics, /healthz, /readyz) for scrapers and probes. */
  address: ListenAddress;
  /** How long one namespace's usage is reused: one HPA sync costs at most one query per namespace. */
  metricsCacheTtlMs: number;
  /** `--list-page-size`: objects a list page for the pod and controller caches; 0: unpaginated. */
  listPageSize: number;
  /** Usage from Prometheus instead of metrics.k8s.io when set. */
  prometheus:
    | { url: string; cpuQuery: string; memoryQuery: string; timeoutMs: number }
    | undefined;
  /** `--upstream-provider`: every request Tandem does not serve goes there (ADR 0022). */
  upstreamProvider: UpstreamProvider | undefined;
  verbosityLogLevel: 'info' | 'debug';
  ignoredFlags: string[];
}

/**
 * cAdvisor's series as the kubelet exports them; `<<namespace>>` is replaced by the
 * namespace asked for. Each answer must carry `pod` and `container` labels.
 */
export const DEFAULT_PROMETHEUS_CPU_QUERY =
  'sum by (pod, container) (rate(container_cpu_usage_seconds_total{namespace="<<namespace>>",container!="",container!="POD"}[2m]))';
export const DEFAULT_PROMETHEUS_MEMORY_QUERY =
  'sum by (pod, container) (container_memory_working_set_bytes{namespace="<<namespace>>",container!="",container!="POD"})';

export function parseFlags(argv: readonly string[]): AdapterFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: goStyleArgs(argv, new Set(KLOG_BOOLEAN_FLAGS)),
      strict: true,
      allowNegative: true,
      options: {
        kubeconfig: { type: 'string' },
        'secure-port': { type: 'string', default: '6443' },
        'bind-address': { type: 'string', default: '' },
        'tls-cert-file': {
          type: 'string',
          default: '/etc/tls-certs/serverCert.pem',
        },
        'tls-private-key-file': {
          type: 'string',
          default: '/etc/tls-certs/serverKey.pem',
        },
        'tls-min-version': { type: 'string', default: 'VersionTLS12' },
        'apiservice-ca-file': { type: 'string', default: '' },
        address: { type: 'string', default: ':8946' },
        'metrics-cache-ttl': { type: 'string', default: '10s' },
        // client-go's pager size: a page at a time, never the cluster's pods in one body.
        'list-page-size': {
          type: 'string',
          default: String(DEFAULT_LIST_PAGE_SIZE),
        },
        'prometheus-url': { type: 'string', default: '' },
        'prometheus-cpu-query': {
          type: 'string',
          default: DEFAULT_PROMETHEUS_CPU_QUERY,
        },
        'prometheus-memory-query': {
          type: 'string',
          default: DEFAULT_PROMETHEUS_MEMORY_QUERY,
        },
        'prometheus-timeout': { type: 'string', default: '5s' },
        ...UPSTREAM_FLAG_OPTIONS,
        ...certificateFlagOptions('tandem-metrics-adapter'),
        v: { type: 'string', default: '2' },
        ...KLOG_NO_OP_FLAG_OPTIONS,
      },
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  const prometheusUrl = values['prometheus-url'];
  if (prometheusUrl !== '' && !/^https?:\/\//.test(prometheusUrl))
    throw new FlagError(
      `--prometheus-url: '${prometheusUrl}' is not an http:// or https:// URL`,
    );
  for (const flag of [
    'prometheus-cpu-query',
    'prometheus-memory-query',
  ] as const)
    if (!values[flag].includes('<<namespace>>'))
      throw new FlagError(
        `--${flag} must contain <<namespace>>, which is replaced by the namespace asked for`,
      );
  return {
    kubeconfig: values.kubeconfig,
    secure: parseAddress(
      `${values['bind-address']}:${values['secure-port']}`,
      'secure-port',
    ),
    tlsCertFile: values['tls-cert-file'],
    tlsPrivateKeyFile: values['tls-private-key-file'],
    certificates: parseCertificateFlags(values),
    apiServiceCaFile: values['apiservice-ca-file'] || undefined,
    minTlsVersion: tlsVersion(values['tls-min-version']),
    address: parseAddress(values.address, 'address'),
    metricsCacheTtlMs: parseDuration(
      values['metrics-cache-ttl'],
      'metrics-cache-ttl',
    ),
    listPageSize: parseListPageSize(values['list-page-size']),
    prometheus:
      prometheusUrl === ''
        ? undefined
        : {
            url: prometheusUrl,
            cpuQuery: values['prometheus-cpu-query'],
            memoryQuery: values['prometheus-memory-query'],
            timeoutMs: parseDuration(
              values['prometheus-timeout'],
              'prometheus-timeout',
            ),
          },
    upstreamProvider: parseUpstreamProvider(
      values['upstream-provider'],
      values['upstream-provider-ca-file'],
    ),
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    ignoredFlags: ignoredKlogFlags(values),
  };
}

/** The generic API server's spelling of TLS versions. */
function tlsVersion(text: string): AdapterFlags['minTlsVersion'] {
  if (text === 'VersionTLS12') return 'TLSv1.2';
  if (text === 'VersionTLS13') return 'TLSv1.3';
  throw new FlagError(
    `--tls-min-version must be VersionTLS12 or VersionTLS13, got '${text}'`,
  );
}

export { FlagError };
