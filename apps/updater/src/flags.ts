import { parseArgs } from 'node:util';
import {
  FlagError,
  goStyleArgs,
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  leaderElectionFlagOptions,
  parseAddress,
  parseDuration,
  parseFeatureGates,
  parseLeaderElection,
  parseKubeApiRate,
  parseListPageSize,
  parseNamespaceFilter,
  parseNumberIn,
  parsePositiveInteger,
  verbosityLogLevel,
  type KubeApiRateFlags,
  type LeaderElectionFlags,
  type ListenAddress,
} from '@tandem/flags';
import { DEFAULT_LIST_PAGE_SIZE } from '@tandem/kube';
import { DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM } from '@tandem/update-decisions';
import type { FeatureGates } from '@tandem/vpa-api';

/** The updater's settings: upstream's updater flags, names and defaults, and Tandem's own. */
export interface UpdaterFlags extends LeaderElectionFlags, KubeApiRateFlags {
  kubeconfig: string | undefined;
  updaterIntervalMs: number;
  minReplicas: number;
  evictionTolerance: number;
  /** `--eviction-rate-limit`: evictions (and, separately, resizes) a second; ≤ 0 is none. */
  evictionRateLimit: number;
  evictionRateBurst: number;
  /** `--address`: the ops server (/metrics, /healthz, /readyz). */
  address: ListenAddress;
  useAdmissionControllerStatus: boolean;
  admissionControllerStatusLeaseName: string;
  /** Empty means `$NAMESPACE`, else kube-system. */
  admissionControllerStatusLeaseNamespace: string;
  admissionControllerStatusLeaseTimeoutMs: number;
  inPlaceSkipDisruptionBudget: boolean;
  podUpdateThreshold: number;
  podLifetimeThresholdMs: number;
  evictAfterOomThresholdMs: number;
  featureGates: FeatureGates;
  vpaObjectNamespace: string | undefined;
  ignoredVpaObjectNamespaces: string[];
  /** Tandem: log what would be done, change nothing. */
  dryRun: boolean;
  /** Tandem: a workload with a single replica may have it replaced (it is down meanwhile). */
  allowSingleReplica: boolean;
  /** Tandem: VPAs in mode Auto are resized in place first, as InPlaceOrRecreate. */
  inPlaceForAuto: boolean;
  /**
   * Tandem: groups below `--min-replicas` of VPAs annotated
   * `tandem.dev/in-place-below-min-replicas: "true"` are resized in place, never evicted.
   */
  inPlaceBelowMinReplicas: boolean;
  /**
   * Tandem: an in-place resize keeps a memory limit it would set under the container's
   * working set × (1 + this); 0.15 by default.
   */
  inPlaceMemoryLimitHeadroom: number;
  /** `--list-page-size` (Tandem's): objects a list page for the caches; 0: unpaginated. */
  listPageSize: number;
  verbosityLogLevel: 'info' | 'debug';
  /** klog flags given on the command line, accepted and ignored (one warning). */
  ignoredFlags: string[];
}

/** Upstream's updater gates (all alpha, off by default). */
const FEATURE_GATES = {
  InPlace: { default: false, implemented: true },
  PerVPAConfig: { default: false, implemented: true },
  CPUStartupBoost: { default: false, implemented: true },
  // Native sidecars updated like containers (AEP-8905; docs/decisions/0033).
  NativeSidecar: { default: false, implemented: true },
} as const;

const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'use-admission-controller-status',
  'in-place-skip-disruption-budget',
  'leader-elect',
  'profiling',
  'dry-run',
  'allow-single-replica',
  'in-place-for-auto',
  'in-place-below-min-replicas',
  ...KLOG_BOOLEAN_FLAGS,
]);

export function parseFlags(argv: readonly string[]): UpdaterFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: goStyleArgs(argv, BOOLEAN_FLAGS),
      strict: true,
      allowNegative: true,
      options: {
        kubeconfig: { type: 'string' },
        'updater-interval': { type: 'string', default: '1m' },
        'min-replicas': { type: 'string', default: '2' },
        'eviction-tolerance': { type: 'string', default: '0.5' },
        'eviction-rate-limit': { type: 'string', default: '-1' },
        'eviction-rate-burst': { type: 'string', default: '1' },
        address: { type: 'string', default: ':8943' },
        'use-admission-controller-status': { type: 'boolean', default: true },
        'admission-controller-status-lease-name': {
          type: 'string',
          default: 'vpa-admission-controller',
        },
        'admission-controller-status-lease-namespace': {
          type: 'string',
          default: '',
        },
        'admission-controller-status-lease-timeout': {
          type: 'string',
          default: '1m',
        },
        'in-place-skip-disruption-budget': { type: 'boolean', default: false },
        'pod-update-threshold': { type: 'string', default: '0.1' },
        'in-recommendation-bounds-eviction-lifetime-threshold': {
          type: 'string',
          default: '12h',
        },
        'evict-after-oom-threshold': { type: 'string', default: '10m' },
        'feature-gates': { type: 'string', default: '' },
        'vpa-object-namespace': { type: 'string', default: '' },
        'ignored-vpa-object-namespaces': { type: 'string', default: '' },
        ...leaderElectionFlagOptions('vpa-updater'),
        'dry-run': { type: 'boolean', default: false },
        'allow-single-replica': { type: 'boolean', default: false },
        'in-place-for-auto': { type: 'boolean', default: false },
        'in-place-below-min-replicas': { type: 'boolean', default: false },
        'in-place-memory-limit-headroom': {
          type: 'string',
          default: String(DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM),
        },
        // Client-side rate limits of upstream's client, on every request (watches, reads,
        // writes); the evictions and resizes are paced by --eviction-rate-limit besides.
        'kube-api-qps': { type: 'string', default: '5' },
        'kube-api-burst': { type: 'string', default: '10' },
        // Tandem's: client-go's pager size for the caches' lists (0: one request each).
        'list-page-size': {
          type: 'string',
          default: String(DEFAULT_LIST_PAGE_SIZE),
        },
        profiling: { type: 'boolean', default: false },
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
  const evictionRateLimit = parseRate(values['eviction-rate-limit']);
  const evictionRateBurst = parsePositiveInteger(
    values['eviction-rate-burst'],
    'eviction-rate-burst',
  );
  return {
    kubeconfig: values.kubeconfig,
    ...parseKubeApiRate(values['kube-api-qps'], values['kube-api-burst']),
    listPageSize: parseListPageSize(values['list-page-size']),
    updaterIntervalMs: parseDuration(
      values['updater-interval'],
      'updater-interval',
    ),
    minReplicas: parsePositiveInteger(values['min-replicas'], 'min-replicas'),
    evictionTolerance: parseNumberIn(
      values['eviction-tolerance'],
      'eviction-tolerance',
      0,
      1,
    ),
    evictionRateLimit,
    evictionRateBurst,
    address: parseAddress(values.address, 'address'),
    useAdmissionControllerStatus: values['use-admission-controller-status'],
    admissionControllerStatusLeaseName:
      values['admission-controller-status-lease-name'],
    admissionControllerStatusLeaseNamespace:
      values['admission-controller-status-lease-namespace'],
    admissionControllerStatusLeaseTimeoutMs: parseDuration(
      values['admission-controller-status-lease-timeout'],
      'admission-controller-status-lease-timeout',
    ),
    inPlaceSkipDisruptionBudget: values['in-place-skip-disruption-budget'],
    podUpdateThreshold: parseNumberIn(
      values['pod-update-threshold'],
      'pod-update-threshold',
      0,
    ),
    podLifetimeThresholdMs: parseDuration(
      values['in-recommendation-bounds-eviction-lifetime-threshold'],
      'in-recommendation-bounds-eviction-lifetime-threshold',
    ),
    evictAfterOomThresholdMs: parseDuration(
      values['evict-after-oom-threshold'],
      'evict-after-oom-threshold',
    ),
    featureGates: parseFeatureGates(values['feature-gates'], FEATURE_GATES),
    vpaObjectNamespace: namespaces.only,
    ignoredVpaObjectNamespaces: namespaces.ignored,
    ...parseLeaderElection(values),
    dryRun: values['dry-run'],
    allowSingleReplica: values['allow-single-replica'],
    inPlaceForAuto: values['in-place-for-auto'],
    inPlaceBelowMinReplicas: values['in-place-below-min-replicas'],
    inPlaceMemoryLimitHeadroom: parseNumberIn(
      values['in-place-memory-limit-headroom'],
      'in-place-memory-limit-headroom',
      0,
    ),
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    ignoredFlags: ignoredKlogFlags(values),
  };
}

/** `--eviction-rate-limit`: a number of evictions a second; 0 or less (upstream: -1) is none. */
function parseRate(text: string): number {
  const negative = text.startsWith('-');
  try {
    const value = parseNumberIn(
      negative ? text.slice(1) : text,
      'eviction-rate-limit',
      0,
    );
    return negative ? -value : value;
  } catch {
    throw new FlagError(
      `--eviction-rate-limit must be a number (0 or less for no limit), got '${text}'`,
    );
  }
}

export { FlagError };
