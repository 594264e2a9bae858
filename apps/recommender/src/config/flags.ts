import { parseArgs } from 'node:util';
import {
  type EstimatorSettings,
  ESTIMATOR_FLAG_OPTIONS,
  estimatorSettings,
} from './estimator-flags.js';
import {
  FlagError,
  goStyleArgs,
  parseDuration,
  parseNumberIn,
  parsePositiveInteger,
  parseNamespaceFilter,
  leaderElectionFlagOptions,
  parseLeaderElection,
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  parseFeatureGates,
  verbosityLogLevel,
  type LeaderElectionFlags,
} from '@tandem/flags';
import {
  parseQuantity,
  QuantityError,
  type FeatureGates,
  type ResourceList,
} from '@tandem/vpa-api';
import type { PrometheusSettings } from '../inputs/load-prometheus-history.js';
import {
  parsePrometheusDuration,
  PrometheusDurationError,
} from '@tandem/recommender-core';

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
  /** `--cpu-integer-post-processor-enabled`: annotated containers get whole-core CPU. */
  integerCpuPostProcessor: boolean;
}

/** `--history-length` and `--history-resolution`: Prometheus syntax, and more than zero. */
function historyDuration(text: string, flag: string): number {
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
}

function parseStorage(text: string): RecommenderFlags['storage'] {
  if (text === '' || text === 'checkpoint') return 'checkpoint';
  if (text === 'prometheus') return text;
  throw new FlagError(
    `--storage must be checkpoint (or empty) or prometheus, got '${text}'`,
  );
}

function prometheusAddress(text: string): string {
  const protocol = URL.parse(text)?.protocol;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new FlagError(
      `--prometheus-address: '${text}' is not an http:// or https:// URL`,
    );
  return text;
}

function parseAddress(text: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port > 65535)
    throw new FlagError(`--address: '${text}' is not host:port (e.g. :8942)`);
  return { host: match[1] === '' ? '0.0.0.0' : (match[1] ?? ''), port };
}

function maxAllowed(resource: 'cpu' | 'memory', text: string): ResourceList {
  if (text === '') return {};
  try {
    parseQuantity(text);
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    throw new FlagError(
      `--container-recommendation-max-allowed-${resource}: ${error.message}`,
    );
  }
  return { [resource]: text };
}

export { FlagError, parseDuration } from '@tandem/flags';

/** Go-style booleans: `--name`, `--name=true` or `--name=false`. */
const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'memory-saver',
  'leader-elect',
  'prometheus-insecure',
  'humanize-memory',
  'profiling',
  'cpu-integer-post-processor-enabled',
  ...KLOG_BOOLEAN_FLAGS,
]);

/**
 * Upstream's gates, all alpha and off. InPlace and CPUStartupBoost change nothing in a
 * recommender; PerVPAConfig's per-VPA OOM and aggregation settings are not implemented, so
 * turning it on is refused by name.
 */
const FEATURE_GATES = {
  InPlace: { default: false, implemented: true },
  CPUStartupBoost: { default: false, implemented: true },
  PerVPAConfig: { default: false, implemented: false },
} as const;

/** Upstream flags Tandem has no counterpart for, and why: refused by name, never ignored. */
const UNIMPLEMENTED_FLAGS: ReadonlyMap<string, string> = new Map([
  ['use-external-metrics', 'usage comes from metrics.k8s.io or Prometheus'],
  [
    'external-metrics-cpu-metric',
    'usage comes from metrics.k8s.io or Prometheus',
  ],
  [
    'external-metrics-memory-metric',
    'usage comes from metrics.k8s.io or Prometheus',
  ],
]);

function refuseUnimplemented(args: readonly string[]): void {
  for (const arg of args) {
    const name = /^--([^=]+)/.exec(arg)?.[1] ?? '';
    const why = UNIMPLEMENTED_FLAGS.get(name);
    if (why !== undefined)
      throw new FlagError(
        `--${name} is an upstream flag Tandem does not implement: ${why}; remove it`,
      );
  }
}

export function parseFlags(argv: readonly string[]): RecommenderFlags {
  const args = goStyleArgs(argv, BOOLEAN_FLAGS);
  refuseUnimplemented(args);
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowNegative: true,
      options: {
        kubeconfig: { type: 'string' },
        'recommender-name': { type: 'string', default: 'default' },
        'recommender-interval': { type: 'string', default: '1m' },
        'checkpoints-gc-interval': { type: 'string', default: '10m' },
        'checkpoints-timeout': { type: 'string', default: '1m' },
        'update-worker-count': { type: 'string', default: '10' },
        address: { type: 'string', default: ':8942' },
        'memory-saver': { type: 'boolean', default: false },
        'vpa-object-namespace': { type: 'string', default: '' },
        'ignored-vpa-object-namespaces': { type: 'string', default: '' },
        ...leaderElectionFlagOptions('vpa-recommender-lease'),
        'container-recommendation-max-allowed-cpu': {
          type: 'string',
          default: '',
        },
        'container-recommendation-max-allowed-memory': {
          type: 'string',
          default: '',
        },
        storage: { type: 'string', default: '' },
        'prometheus-address': {
          type: 'string',
          default: 'http://prometheus.monitoring.svc',
        },
        'prometheus-insecure': { type: 'boolean', default: false },
        'prometheus-cadvisor-job-name': {
          type: 'string',
          default: 'kubernetes-cadvisor',
        },
        'history-length': { type: 'string', default: '8d' },
        'history-resolution': { type: 'string', default: '1h' },
        'history-cpu-metric': {
          type: 'string',
          default: 'container_cpu_usage_seconds_total',
        },
        'history-memory-metric': {
          type: 'string',
          default: 'container_memory_working_set_bytes',
        },
        'prometheus-query-timeout': { type: 'string', default: '5m' },
        'pod-label-prefix': { type: 'string', default: 'pod_label_' },
        'metric-for-pod-labels': {
          type: 'string',
          default: 'up{job="kubernetes-pods"}',
        },
        'pod-namespace-label': {
          type: 'string',
          default: 'kubernetes_namespace',
        },
        'pod-name-label': { type: 'string', default: 'kubernetes_pod_name' },
        'container-namespace-label': { type: 'string', default: 'namespace' },
        'container-pod-name-label': { type: 'string', default: 'pod_name' },
        'container-name-label': { type: 'string', default: 'name' },
        username: { type: 'string', default: '' },
        password: { type: 'string', default: '' },
        'prometheus-bearer-token': { type: 'string', default: '' },
        'prometheus-bearer-token-file': { type: 'string', default: '' },
        ...ESTIMATOR_FLAG_OPTIONS,
        'feature-gates': { type: 'string', default: '' },
        'kube-api-qps': { type: 'string', default: '50' },
        'kube-api-burst': { type: 'string', default: '100' },
        'cpu-integer-post-processor-enabled': {
          type: 'boolean',
          default: false,
        },
        // pprof: Tandem has no profiling endpoint; accepted so upstream's manifests start.
        profiling: { type: 'boolean' },
        // klog's verbosity: upstream manifests set it; 5 and more mean debug logs here.
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
  // Upstream's check, which only rejects all three together.
  if (
    values['prometheus-bearer-token'] !== '' &&
    values['prometheus-bearer-token-file'] !== '' &&
    values.username !== ''
  ) {
    throw new FlagError(
      '--prometheus-bearer-token, --prometheus-bearer-token-file and --username are mutually exclusive and cannot be set together',
    );
  }
  return {
    kubeconfig: values.kubeconfig,
    recommenderName: values['recommender-name'],
    recommenderIntervalMs: parseDuration(
      values['recommender-interval'],
      'recommender-interval',
    ),
    checkpointsGcIntervalMs: parseDuration(
      values['checkpoints-gc-interval'],
      'checkpoints-gc-interval',
    ),
    checkpointsTimeoutMs: parseDuration(
      values['checkpoints-timeout'],
      'checkpoints-timeout',
    ),
    updateWorkerCount: parsePositiveInteger(
      values['update-worker-count'],
      'update-worker-count',
    ),
    address: parseAddress(values.address),
    memorySaver: values['memory-saver'],
    vpaObjectNamespace: namespaces.only,
    ignoredVpaObjectNamespaces: namespaces.ignored,
    ...parseLeaderElection(values),
    globalMaxAllowed: {
      ...maxAllowed('cpu', values['container-recommendation-max-allowed-cpu']),
      ...maxAllowed(
        'memory',
        values['container-recommendation-max-allowed-memory'],
      ),
    },
    estimators: estimatorSettings(values),
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    featureGates: parseFeatureGates(values['feature-gates'], FEATURE_GATES),
    ignoredFlags: [
      ...ignoredKlogFlags(values),
      ...(values.profiling === undefined ? [] : ['profiling']),
    ],
    storage: parseStorage(values.storage),
    // client-go's meanings: a negative rate is no limit; 0 is its default (5/s, burst 10).
    kubeApiQps: parseNumberIn(
      values['kube-api-qps'],
      'kube-api-qps',
      -Infinity,
    ),
    kubeApiBurst: parseNumberIn(values['kube-api-burst'], 'kube-api-burst', 0),
    integerCpuPostProcessor: values['cpu-integer-post-processor-enabled'],
    prometheus: {
      address: prometheusAddress(values['prometheus-address']),
      insecure: values['prometheus-insecure'],
      cadvisorJobName: values['prometheus-cadvisor-job-name'],
      historyLengthMs: historyDuration(
        values['history-length'],
        'history-length',
      ),
      historyResolution: values['history-resolution'],
      historyResolutionMs: historyDuration(
        values['history-resolution'],
        'history-resolution',
      ),
      cpuMetric: values['history-cpu-metric'],
      memoryMetric: values['history-memory-metric'],
      // A Go duration upstream (time.ParseDuration), unlike the two history flags.
      queryTimeoutMs: parseDuration(
        values['prometheus-query-timeout'],
        'prometheus-query-timeout',
      ),
      podLabelPrefix: values['pod-label-prefix'],
      podLabelsMetric: values['metric-for-pod-labels'],
      podNamespaceLabel: values['pod-namespace-label'],
      podNameLabel: values['pod-name-label'],
      containerNamespaceLabel: values['container-namespace-label'],
      containerPodNameLabel: values['container-pod-name-label'],
      containerNameLabel: values['container-name-label'],
      username: values.username,
      password: values.password,
      bearerToken: values['prometheus-bearer-token'],
      bearerTokenFile: values['prometheus-bearer-token-file'],
    },
  };
}
