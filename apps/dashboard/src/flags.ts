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

export interface DashboardFlags {
  kubeconfig: string | undefined;
  /** `--address`: the pages, `/api/`, `/metrics` and the probes, plain HTTP (ADR 0028). */
  address: ListenAddress;
  /** `--namespace`: one namespace's workloads only; all when unset. */
  namespace: string | undefined;
  /** Between two samples of every workload: the HPA's sync period by default. */
  sampleIntervalMs: number;
  /** How far back the in-memory history goes. */
  historyMs: number;
  listPageSize: number;
  /** `--prometheus-url` and its settings: where history past memory's is read; none when unset. */
  prometheus: PrometheusFlags | undefined;
  verbosityLogLevel: 'info' | 'debug';
  ignoredFlags: string[];
}

export interface PrometheusFlags {
  url: string;
  queryTimeoutMs: number;
  /** Read at each query, so a rotated token is picked up; empty for none. */
  bearerTokenFile: string;
}

function parsePrometheus(values: {
  'prometheus-url': string;
  'prometheus-query-timeout': string;
  'prometheus-bearer-token-file': string;
}): PrometheusFlags | undefined {
  const url = values['prometheus-url'];
  if (url === '') return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new FlagError(
      `--prometheus-url ${JSON.stringify(url)} is not an http:// or https:// URL`,
    );
  return {
    url,
    queryTimeoutMs: parseDuration(
      values['prometheus-query-timeout'],
      'prometheus-query-timeout',
    ),
    bearerTokenFile: values['prometheus-bearer-token-file'],
  };
}

export function parseFlags(argv: readonly string[]): DashboardFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: goStyleArgs(argv, new Set(KLOG_BOOLEAN_FLAGS)),
      strict: true,
      allowNegative: true,
      options: {
        kubeconfig: { type: 'string' },
        address: { type: 'string', default: ':8080' },
        namespace: { type: 'string', default: '' },
        'sample-interval': { type: 'string', default: '15s' },
        history: { type: 'string', default: '24h' },
        'prometheus-url': { type: 'string', default: '' },
        'prometheus-query-timeout': { type: 'string', default: '10s' },
        'prometheus-bearer-token-file': { type: 'string', default: '' },
        'list-page-size': {
          type: 'string',
          default: String(DEFAULT_LIST_PAGE_SIZE),
        },
        v: { type: 'string', default: '2' },
        ...KLOG_NO_OP_FLAG_OPTIONS,
      },
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  const sampleIntervalMs = parseDuration(
    values['sample-interval'],
    'sample-interval',
  );
  const historyMs = parseDuration(values.history, 'history');
  if (sampleIntervalMs < 1000)
    throw new FlagError('--sample-interval must be at least 1s');
  if (historyMs < sampleIntervalMs)
    throw new FlagError('--history must be at least --sample-interval');
  return {
    kubeconfig: values.kubeconfig,
    address: parseAddress(values.address, 'address'),
    namespace: values.namespace || undefined,
    sampleIntervalMs,
    historyMs,
    listPageSize: parseListPageSize(values['list-page-size']),
    prometheus: parsePrometheus(values),
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    ignoredFlags: ignoredKlogFlags(values),
  };
}
