import {
  booleanFlag,
  FlagError,
  flagGiven,
  flagGroup,
  type FlagParser,
  KLOG_NO_OP_FLAGS,
  leaderElectionFlagTable,
  LIST_PAGE_SIZE_HELP,
  parseAddress,
  parseDuration,
  parseFeatureGates,
  parseListPageSize,
  parseNumberIn,
  parsePositiveInteger,
  stringFlag,
  verbosityFlag,
} from '@tandem/flags';
import { DEFAULT_LIST_PAGE_SIZE } from '@tandem/kube';
import {
  parseQuantity,
  QuantityError,
  type ResourceList,
} from '@tandem/vpa-api';
import {
  parsePrometheusDuration,
  PrometheusDurationError,
} from '@tandem/recommender-core';
import {
  DEFAULT_STRATEGY,
  STRATEGIES,
  strategyDefinition,
} from '@tandem/strategies';
import { AGGREGATION_FLAGS, RECOMMENDATION_FLAGS } from './estimator-flags.js';

/** `--history-length` and `--history-resolution`: Prometheus syntax, and more than zero. */
const historyDuration: FlagParser<number> = (text, flag) => {
  let ms;
  try {
    ms = parsePrometheusDuration(text, flag);
  } catch (error) {
    if (!(error instanceof PrometheusDurationError)) throw error;
    throw new FlagError(error.message);
  }
  if (ms === 0)
    throw new FlagError(`--${flag} must be positive, got '${text}'`);
  return ms;
};

/** A strategy name of the registry; an unknown one fails start-up with the names there are. */
const knownStrategy: FlagParser<string> = (text, flag) => {
  const found = strategyDefinition(text);
  if ('error' in found) throw new FlagError(`--${flag}: ${found.error}`);
  return text;
};

function parseStorage(text: string): 'checkpoint' | 'prometheus' {
  if (text === '' || text === 'checkpoint') return 'checkpoint';
  if (text === 'prometheus') return text;
  throw new FlagError(
    `--storage must be checkpoint (or empty) or prometheus, got '${text}'`,
  );
}

const prometheusAddress: FlagParser<string> = (text, flag) => {
  const protocol = URL.parse(text)?.protocol;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new FlagError(
      `--${flag}: '${text}' is not an http:// or https:// URL`,
    );
  return text;
};

/** `--container-recommendation-max-allowed-<resource>`: a quantity, or '' for no cap. */
function maxAllowed(resource: 'cpu' | 'memory'): FlagParser<ResourceList> {
  return (text, flag) => {
    if (text === '') return {};
    try {
      parseQuantity(text);
    } catch (error) {
      if (!(error instanceof QuantityError)) throw error;
      throw new FlagError(`--${flag}: ${error.message}`);
    }
    return { [resource]: text };
  };
}

/** An upstream flag Tandem has no counterpart for: refused by name, with why, never ignored. */
function refused(why: string): FlagParser<void> {
  return (_text, flag, wasGiven) => {
    if (wasGiven)
      throw new FlagError(
        `--${flag} is an upstream flag Tandem does not implement: ${why}; remove it`,
      );
  };
}

/**
 * Upstream's gates, all alpha and off. InPlace and CPUStartupBoost change nothing in a
 * recommender; PerVPAConfig's per-VPA OOM and aggregation settings are not implemented, so
 * turning it on is refused by name. NativeSidecar (AEP-8905, ADR 0033) models native
 * sidecars as containers and recommends them.
 */
const FEATURE_GATES = {
  InPlace: { default: false, implemented: true },
  CPUStartupBoost: { default: false, implemented: true },
  PerVPAConfig: { default: false, implemented: false },
  NativeSidecar: { default: false, implemented: true },
} as const;

/** The gates as `--help` lists them, as upstream does: `Name=true|false`. */
const GATE_OPTIONS = Object.keys(FEATURE_GATES)
  .sort()
  .map((gate) => `${gate}=true|false`)
  .join(', ');

const NO_EXTERNAL_METRICS = refused(
  'usage comes from metrics.k8s.io or Prometheus',
);

/**
 * Every flag of the recommender: name, default (as upstream writes it), help (upstream's
 * words for upstream's flags; Tandem's notes say so) and parser, grouped in the order of
 * upstream's config.go. `parseArgs`, `--help` and the README's table all derive from it.
 */
export const RECOMMENDER_FLAGS = {
  ...flagGroup('Kubernetes API and VPA objects', {
    kubeconfig: stringFlag(
      '',
      'Path to a kubeconfig. Only required if out-of-cluster. (Tandem: else KUBECONFIG, in-cluster, ~/.kube/config)',
      (text, _flag, wasGiven) => (wasGiven ? text : undefined),
    ),
    'kube-api-qps': stringFlag(
      '50',
      'QPS limit when making requests to Kubernetes apiserver (Tandem, as client-go: negative means no limit, 0 its default of 5/s with burst 10)',
      (text, flag) => parseNumberIn(text, flag, -Infinity),
    ),
    'kube-api-burst': stringFlag(
      '100',
      'QPS burst limit when making requests to Kubernetes apiserver',
      (text, flag) => parseNumberIn(text, flag, 0),
    ),
    'list-page-size': stringFlag(
      String(DEFAULT_LIST_PAGE_SIZE),
      LIST_PAGE_SIZE_HELP,
      parseListPageSize,
    ),
    // pprof: Tandem has no profiling endpoint; accepted so upstream's manifests start.
    profiling: booleanFlag(
      false,
      'Is debug/pprof endpoint enabled (Tandem: accepted and ignored; there is no pprof endpoint)',
      flagGiven,
    ),
    'vpa-object-namespace': stringFlag(
      '',
      'Specifies the namespace to search for VPA objects. Leave empty to include all namespaces. If provided, the garbage collector will only clean this namespace.',
    ),
    'ignored-vpa-object-namespaces': stringFlag(
      '',
      'A comma-separated list of namespaces to ignore when searching for VPA objects. Leave empty to avoid ignoring any namespaces. These namespaces will not be cleaned by the garbage collector.',
    ),
  }),
  ...flagGroup('Recommender', {
    'recommender-name': stringFlag(
      'default',
      "Set the recommender name. Recommender will generate recommendations for VPAs that configure the same recommender name. If the recommender name is left as default it will also generate recommendations that don't explicitly specify recommender. You shouldn't run two recommenders with the same name in a cluster.",
    ),
    'recommender-interval': stringFlag(
      '1m',
      'How often metrics should be fetched (Tandem: the cycle period; the first cycle runs one interval after start)',
      parseDuration,
    ),
    'checkpoints-gc-interval': stringFlag(
      '10m',
      'How often orphaned checkpoints should be garbage collected',
      parseDuration,
    ),
    'checkpoints-timeout': stringFlag(
      '1m',
      "Timeout for writing checkpoints since the start of the recommender's main loop",
      parseDuration,
    ),
    address: stringFlag(
      ':8942',
      'The address to expose Prometheus metrics. (Tandem: also /healthz and /readyz; port 0 picks a free one)',
      parseAddress,
    ),
    storage: stringFlag(
      '',
      'Specifies storage mode. Supported values: prometheus, checkpoint (default) (Tandem: any other value is rejected)',
      parseStorage,
    ),
    'memory-saver': booleanFlag(
      false,
      'If true, only track pods which have an associated VPA',
    ),
    'update-worker-count': stringFlag(
      '10',
      "Number of concurrent workers to update VPA recommendations and checkpoints. When increasing this setting, make sure the client-side rate limits ('kube-api-qps' and 'kube-api-burst') are either increased or turned off as well. Determines the minimum number of VPA checkpoints written per recommender loop.",
      parsePositiveInteger,
    ),
    // Deprecated upstream and without effect there; accepted so upstream manifests start.
    'min-checkpoints': stringFlag(
      '10',
      "Minimum number of checkpoints to write per recommender's main loop. WARNING: this flag is deprecated and doesn't have any effect. It will be removed in a future release. Refer to update-worker-count to influence the minimum number of checkpoints written per loop.",
      parsePositiveInteger,
    ),
    'quality-metrics': booleanFlag(
      false,
      "Record upstream's vpa_quality_* metrics (Tandem: opt-in; they cost CPU per sample)",
    ),
    'default-strategy': stringFlag(
      DEFAULT_STRATEGY,
      `Strategy of a VPA without a tandem.dev/strategy annotation (Tandem's; one of ${STRATEGIES.map((strategy) => strategy.name).join(', ')})`,
      knownStrategy,
    ),
  }),
  ...RECOMMENDATION_FLAGS,
  ...flagGroup('History from Prometheus (--storage=prometheus)', {
    'prometheus-address': stringFlag(
      'http://prometheus.monitoring.svc',
      'Where to reach for Prometheus metrics (Tandem: an http:// or https:// URL; a path prefix is kept)',
      prometheusAddress,
    ),
    'prometheus-insecure': booleanFlag(
      false,
      'Skip tls verify if https is used in the prometheus-address',
    ),
    'prometheus-cadvisor-job-name': stringFlag(
      'kubernetes-cadvisor',
      'Name of the prometheus job name which scrapes the cAdvisor metrics',
    ),
    'history-length': stringFlag(
      '8d',
      'How much time back prometheus have to be queried to get historical metrics (Tandem: a Prometheus duration such as 1w, 8d or 1h30m)',
      historyDuration,
    ),
    'history-resolution': stringFlag(
      '1h',
      'Resolution at which Prometheus is queried for historical metrics (Tandem: a Prometheus duration)',
      (text, flag) => ({ text, ms: historyDuration(text, flag, true) }),
    ),
    'history-cpu-metric': stringFlag(
      'container_cpu_usage_seconds_total',
      'Name of the metric to use for CPU history when querying Prometheus.',
    ),
    'history-memory-metric': stringFlag(
      'container_memory_working_set_bytes',
      'Name of the metric to use for memory history when querying Prometheus',
    ),
    // A Go duration upstream (time.ParseDuration), unlike the two history flags.
    'prometheus-query-timeout': stringFlag(
      '5m',
      'How long to wait before killing long queries (Tandem: a Go duration, as upstream)',
      parseDuration,
    ),
    'pod-label-prefix': stringFlag(
      'pod_label_',
      'Which prefix to look for pod labels in metrics',
    ),
    'metric-for-pod-labels': stringFlag(
      'up{job="kubernetes-pods"}',
      'Which metric to look for pod labels in metrics',
    ),
    'pod-namespace-label': stringFlag(
      'kubernetes_namespace',
      'Label name to look for pod namespaces',
    ),
    'pod-name-label': stringFlag(
      'kubernetes_pod_name',
      'Label name to look for pod names',
    ),
    'container-namespace-label': stringFlag(
      'namespace',
      'Label name to look for container namespaces',
    ),
    'container-pod-name-label': stringFlag(
      'pod_name',
      'Label name to look for container pod names',
    ),
    'container-name-label': stringFlag(
      'name',
      'Label name to look for container names',
    ),
    username: stringFlag(
      '',
      'The username used in the prometheus server basic auth. Can also be set via the PROMETHEUS_USERNAME environment variable',
    ),
    password: stringFlag(
      '',
      'The password used in the prometheus server basic auth. Can also be set via the PROMETHEUS_PASSWORD environment variable',
    ),
    'prometheus-bearer-token': stringFlag(
      '',
      'The bearer token used in the Prometheus server bearer token auth',
    ),
    'prometheus-bearer-token-file': stringFlag(
      '',
      'Path to the bearer token file used for authentication by the Prometheus server (Tandem: wins over the token; read at each load)',
    ),
  }),
  ...flagGroup('External metrics (not implemented: refused by name)', {
    'use-external-metrics': booleanFlag(
      false,
      'ALPHA. Use an external metrics provider instead of metrics_server.',
      NO_EXTERNAL_METRICS,
    ),
    'external-metrics-cpu-metric': stringFlag(
      '',
      'ALPHA. Metric to use with external metrics provider for CPU usage.',
      NO_EXTERNAL_METRICS,
    ),
    'external-metrics-memory-metric': stringFlag(
      '',
      'ALPHA. Metric to use with external metrics provider for memory usage.',
      NO_EXTERNAL_METRICS,
    ),
  }),
  ...AGGREGATION_FLAGS,
  ...flagGroup('Post-processors and caps', {
    'cpu-integer-post-processor-enabled': booleanFlag(
      false,
      'Enable the cpu-integer recommendation post processor. The post processor will round up CPU recommendations to a whole CPU for pods which were opted in by setting an appropriate label on VPA object (experimental)',
    ),
    'container-recommendation-max-allowed-cpu': stringFlag(
      '',
      'Maximum amount of CPU that will be recommended for a container. VerticalPodAutoscaler-level maximum allowed takes precedence over the global maximum allowed.',
      maxAllowed('cpu'),
    ),
    'container-recommendation-max-allowed-memory': stringFlag(
      '',
      'Maximum amount of memory that will be recommended for a container. VerticalPodAutoscaler-level maximum allowed takes precedence over the global maximum allowed.',
      maxAllowed('memory'),
    ),
    'cap-recommendation-at-largest-node': booleanFlag(
      false,
      "Tandem: scale each VPA's recommendation down so that one pod's containers fit the largest schedulable node's allocatable CPU and memory, after the VPA's own policy (reads Nodes: needs list and watch on nodes)",
    ),
    'cap-oom-bump-up-at-max-allowed': booleanFlag(
      false,
      "Tandem: an OOM kill's bump-up sample stops at the container's memory maxAllowed (policy, else --container-recommendation-max-allowed-memory), so a container capped below its peak does not inflate its uncapped target (kubernetes/autoscaler#9521; upstream does not cap it)",
    ),
  }),
  ...leaderElectionFlagTable('vpa-recommender-lease'),
  ...flagGroup('Feature gates and logging', {
    'feature-gates': stringFlag(
      '',
      `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are: ${GATE_OPTIONS} (all ALPHA - default=false; Tandem: PerVPAConfig=true is refused, its behaviour is not implemented)`,
      (text) => parseFeatureGates(text, FEATURE_GATES),
    ),
    v: verbosityFlag('4'),
  }),
  ...KLOG_NO_OP_FLAGS,
};
