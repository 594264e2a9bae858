import {
  FlagError,
  flagHelp,
  KLOG_NO_OP_FLAGS,
  HelpRequested,
  helpRequested,
  leaderElectionSettings,
  parseFlagTable,
  parseNamespaceFilter,
  type LeaderElectionFlags,
} from '@tandem/flags';
import type { FeatureGates, ResourceList } from '@tandem/vpa-api';
import type { PrometheusSettings } from '../inputs/load-prometheus-history.js';
import {
  type EstimatorSettings,
  estimatorSettings,
} from './estimator-flags.js';
import { RECOMMENDER_FLAGS } from './flag-table.js';

/** The recommender's settings: upstream's flag names and defaults where one exists. */
export interface RecommenderFlags extends LeaderElectionFlags {
  kubeconfig: string | undefined;
  recommenderName: string;
  recommenderIntervalMs: number;
  checkpointsGcIntervalMs: number;
  /** `--checkpoints-timeout`: the deadline of one MaintainCheckpoints step. */
  checkpointsTimeoutMs: number;
  /** `--update-worker-count`: VPA status and checkpoint writes in flight at once. */
  updateWorkerCount: number;
  /** host:port of the ops server (/metrics, /healthz, /readyz); port 0 picks a free one. */
  address: { host: string; port: number };
  memorySaver: boolean;
  vpaObjectNamespace: string | undefined;
  ignoredVpaObjectNamespaces: string[];
  /** Upstream's estimator tuning flags (percentiles, margin, minimums, decay, OOM bump, rounding). */
  estimators: EstimatorSettings;
  /** The log level `--v` asks for when LOG_LEVEL is not set: `debug` from 5 up. */
  verbosityLogLevel: 'info' | 'debug';
  /** `--feature-gates`: accepted as upstream's manifests pass them (see FEATURE_GATES). */
  featureGates: FeatureGates;
  /** klog flags and `--profiling` given on the command line, accepted and ignored. */
  ignoredFlags: string[];
  /** `--container-recommendation-max-allowed-cpu/-memory`: caps for resources a policy leaves open. */
  globalMaxAllowed: ResourceList;
  /** `--storage`: where history comes from at start-up ("" means checkpoint, as upstream). */
  storage: 'checkpoint' | 'prometheus';
  /** The `--prometheus-*`, `--history-*` and label flags; used with `--storage=prometheus`. */
  prometheus: PrometheusSettings;
  /** `--kube-api-qps` / `--kube-api-burst`: client-go's client-side limit on API requests (negative rate: none). */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** `--list-page-size` (Tandem's): objects a list page for the caches; 0: unpaginated. */
  listPageSize: number;
  /** `--cpu-integer-post-processor-enabled`: annotated containers get whole-core CPU. */
  integerCpuPostProcessor: boolean;
  /** `--cap-recommendation-at-largest-node` (Tandem's): recommendations fit the largest node. */
  capAtLargestNode: boolean;
  /** `--cap-oom-bump-up-at-max-allowed` (Tandem's): OOM bump-ups stop at maxAllowed memory. */
  capOomBumpUpAtMaxAllowed: boolean;
  /** `--quality-metrics`: Tandem's opt-in for upstream's `vpa_quality_*` metrics. */
  qualityMetrics: boolean;
  /** `--default-strategy`: what a VPA without `tandem.dev/strategy` gets (a registry name). */
  defaultStrategy: string;
}

export { FlagError, HelpRequested, parseDuration } from '@tandem/flags';

/** klog's flags and `--profiling`: accepted, ignored, and named in one warning when given. */
const IGNORED_FLAGS = [
  ...(Object.keys(KLOG_NO_OP_FLAGS) as (keyof typeof KLOG_NO_OP_FLAGS)[]),
  'profiling',
] as const;

/** What `-h`/`--help` prints: usage, how arguments are read, then the flag table. */
export function recommenderHelp(): string {
  return `Usage: tandem-recommender [flags]

The Tandem VPA recommender, a drop-in for upstream's. Arguments are read as Go's flag
package reads them: -name is --name, a value follows = or a space, and a boolean takes
--name, --name=true or --name=false. Each flag below is shown with its default.

${flagHelp(RECOMMENDER_FLAGS)}`;
}

/** The recommender's flags; `-h`/`--help` throws HelpRequested, a bad flag a FlagError. */
export function parseFlags(argv: readonly string[]): RecommenderFlags {
  if (helpRequested(argv)) throw new HelpRequested(recommenderHelp());
  const flags = parseFlagTable(RECOMMENDER_FLAGS, argv);
  const namespaces = parseNamespaceFilter(
    flags['vpa-object-namespace'],
    flags['ignored-vpa-object-namespaces'],
  );
  // Upstream's check, which only rejects all three together.
  if (
    flags['prometheus-bearer-token'] !== '' &&
    flags['prometheus-bearer-token-file'] !== '' &&
    flags.username !== ''
  ) {
    throw new FlagError(
      '--prometheus-bearer-token, --prometheus-bearer-token-file and --username are mutually exclusive and cannot be set together',
    );
  }
  return {
    kubeconfig: flags.kubeconfig,
    recommenderName: flags['recommender-name'],
    recommenderIntervalMs: flags['recommender-interval'],
    checkpointsGcIntervalMs: flags['checkpoints-gc-interval'],
    checkpointsTimeoutMs: flags['checkpoints-timeout'],
    updateWorkerCount: flags['update-worker-count'],
    address: flags.address,
    memorySaver: flags['memory-saver'],
    vpaObjectNamespace: namespaces.only,
    ignoredVpaObjectNamespaces: namespaces.ignored,
    ...leaderElectionSettings(flags),
    globalMaxAllowed: {
      ...flags['container-recommendation-max-allowed-cpu'],
      ...flags['container-recommendation-max-allowed-memory'],
    },
    estimators: estimatorSettings(flags),
    verbosityLogLevel: flags.v,
    featureGates: flags['feature-gates'],
    ignoredFlags: IGNORED_FLAGS.filter((name) => flags[name]),
    storage: flags.storage,
    kubeApiQps: flags['kube-api-qps'],
    kubeApiBurst: flags['kube-api-burst'],
    listPageSize: flags['list-page-size'],
    integerCpuPostProcessor: flags['cpu-integer-post-processor-enabled'],
    capAtLargestNode: flags['cap-recommendation-at-largest-node'],
    capOomBumpUpAtMaxAllowed: flags['cap-oom-bump-up-at-max-allowed'],
    qualityMetrics: flags['quality-metrics'],
    defaultStrategy: flags['default-strategy'],
    prometheus: {
      address: flags['prometheus-address'],
      insecure: flags['prometheus-insecure'],
      cadvisorJobName: flags['prometheus-cadvisor-job-name'],
      historyLengthMs: flags['history-length'],
      historyResolution: flags['history-resolution'].text,
      historyResolutionMs: flags['history-resolution'].ms,
      cpuMetric: flags['history-cpu-metric'],
      memoryMetric: flags['history-memory-metric'],
      queryTimeoutMs: flags['prometheus-query-timeout'],
      podLabelPrefix: flags['pod-label-prefix'],
      podLabelsMetric: flags['metric-for-pod-labels'],
      podNamespaceLabel: flags['pod-namespace-label'],
      podNameLabel: flags['pod-name-label'],
      containerNamespaceLabel: flags['container-namespace-label'],
      containerPodNameLabel: flags['container-pod-name-label'],
      containerNameLabel: flags['container-name-label'],
      username: flags.username,
      password: flags.password,
      bearerToken: flags['prometheus-bearer-token'],
      bearerTokenFile: flags['prometheus-bearer-token-file'],
    },
  };
}
