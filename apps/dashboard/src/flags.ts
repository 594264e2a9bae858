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
  verbosityLogLevel: 'info' | 'debug';
  ignoredFlags: string[];
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
    verbosityLogLevel: verbosityLogLevel(parseNumberIn(values.v, 'v', 0)),
    ignoredFlags: ignoredKlogFlags(values),
  };
}
