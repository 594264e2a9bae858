import {
  upstreamCommonFlags,
  upstreamFlags,
  UPSTREAM_FEATURE_GATE_PROBES,
  type UpstreamFlag,
  upstreamLeaderElectionFlags,
} from '@tandem/flags';

/**
 * Upstream 1.8's updater flags (`pkg/updater/config/config.go`, `common/flags.go`,
 * client-go's leader election, `pkg/features`) with upstream's defaults: what
 * docs/upstream-flags.md answers for, from the updater's own parser.
 */
export const UPSTREAM_UPDATER_FLAGS: readonly UpstreamFlag[] = [
  ...upstreamCommonFlags({ 'kube-api-qps': '5', 'kube-api-burst': '10' }),
  ...upstreamFlags([
    ['updater-interval', '1m'],
    ['min-replicas', '2'],
    ['eviction-tolerance', '0.5'],
    ['eviction-rate-limit', '-1'],
    ['eviction-rate-burst', '1'],
    ['address', ':8943'],
    ['use-admission-controller-status', 'true'],
    ['in-place-skip-disruption-budget', 'false'],
    ['admission-controller-status-lease-name', 'vpa-admission-controller'],
    ['admission-controller-status-lease-namespace', ''],
    ['admission-controller-status-lease-timeout', '1m'],
    ['pod-update-threshold', '0.1'],
    ['in-recommendation-bounds-eviction-lifetime-threshold', '12h'],
    ['evict-after-oom-threshold', '10m'],
  ]),
  ...upstreamLeaderElectionFlags('vpa-updater'),
  ...UPSTREAM_FEATURE_GATE_PROBES,
];
