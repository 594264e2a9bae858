import {
  upstreamCommonFlags,
  upstreamFlags,
  UPSTREAM_FEATURE_GATE_PROBES,
  type UpstreamFlag,
} from '@tandem/flags';

/**
 * Upstream 1.8's admission controller flags (`pkg/admission-controller/config/config.go`,
 * `common/flags.go`, `pkg/features`; it has no leader election) with upstream's defaults:
 * what docs/upstream-flags.md answers for, from the webhook's own parser.
 */
export const UPSTREAM_ADMISSION_FLAGS: readonly UpstreamFlag[] = [
  ...upstreamCommonFlags({ 'kube-api-qps': '5', 'kube-api-burst': '10' }),
  ...upstreamFlags([
    ['client-ca-file', '/etc/tls-certs/caCert.pem'],
    ['tls-cert-file', '/etc/tls-certs/serverCert.pem'],
    ['tls-private-key', '/etc/tls-certs/serverKey.pem'],
    ['reload-cert', 'false'],
    ['tls-ciphers', ''],
    ['min-tls-version', 'tls1_2'],
    ['port', '8000'],
    ['address', ':8944'],
    ['webhook-service', 'vpa-webhook'],
    ['webhook-address', ''],
    ['webhook-port', ''],
    ['webhook-timeout-seconds', '30'],
    ['webhook-failure-policy-fail', 'false'],
    ['register-webhook', 'true'],
    ['webhook-labels', ''],
    ['register-by-url', 'false'],
    ['status-lease-name', 'vpa-admission-controller'],
    ['status-lease-namespace', ''],
    ['status-lease-update-interval', '10s'],
    ['max-allowed-cpu-boost', ''],
  ]),
  ...UPSTREAM_FEATURE_GATE_PROBES,
];
