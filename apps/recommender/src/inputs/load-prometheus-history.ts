import { readFile } from 'node:fs/promises';
import { describeError } from '@tandem/kube';
import {
  authorizationHeader,
  matrixSeries,
  prometheusClient,
  type PrometheusSeries,
} from '@tandem/prometheus-api';
import {
  applyHistory,
  clusterHistory,
  type ClusterModel,
  type CycleObservability,
  type HistoryLabelNames,
  historyQueries,
  type HistoryQuerySettings,
} from '@tandem/recommender-core';

/** Every `--storage=prometheus` setting (upstream's flag names in flags.ts). */
export interface PrometheusSettings
  extends HistoryQuerySettings,
    HistoryLabelNames {
  readonly address: string;
  readonly insecure: boolean;
  /** `--history-length`, parsed: how far back the usage queries reach. */
  readonly historyLengthMs: number;
  /** `--history-resolution`, parsed: the step of the usage queries. */
  readonly historyResolutionMs: number;
  readonly queryTimeoutMs: number;
  readonly username: string;
  readonly password: string;
  readonly bearerToken: string;
  /** Read at each load, so a rotated token file is picked up; wins over `bearerToken`. */
  readonly bearerTokenFile: string;
}

async function bearerToken(settings: PrometheusSettings): Promise<string> {
  if (settings.bearerTokenFile === '') return settings.bearerToken;
  try {
    return (await readFile(settings.bearerTokenFile, 'utf8')).trim();
  } catch (error) {
    throw new Error(
      `cannot read --prometheus-bearer-token-file ${settings.bearerTokenFile}: ${describeError(error)}`,
      { cause: error },
    );
  }
}

/** Runs one query and reads its matrix; errors say which query failed and why. */
async function series(
  what: string,
  query: string,
  answer: (query: string) => Promise<unknown>,
): Promise<PrometheusSeries[]> {
  try {
    return matrixSeries(await answer(query));
  } catch (error) {
    throw new Error(`${what} ${query}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/**
 * A term's start with `--storage=prometheus` (§4.1, §4.4): queries CPU and memory usage over the
 * last `--history-length` and the pods' labels, and replays them into the model. Never
 * throws: without history the recommender still works, only with less confidence at first,
 * so a failure is logged, counted (`prometheus-history`) and the term goes on. (No
 * checkpoints are written with this storage, so nothing is overwritten with less history.)
 */
export async function loadPrometheusHistory(
  context: { model: ClusterModel } & Pick<
    CycleObservability,
    'metrics' | 'logger'
  >,
  settings: PrometheusSettings,
  namespace: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<void> {
  const { address } = settings;
  const endMs = Date.now();
  const range = {
    startMs: endMs - settings.historyLengthMs,
    endMs,
    stepMs: settings.historyResolutionMs,
  };
  try {
    const client = prometheusClient({
      address,
      insecure: settings.insecure,
      queryTimeoutMs: settings.queryTimeoutMs,
      timeoutFlag: '--prometheus-query-timeout',
      authorization: authorizationHeader(
        { ...settings, bearerToken: await bearerToken(settings) },
        env,
      ),
      // `vpa_recommender_prometheus_client_api_requests_*`, labelled as promhttp labels them.
      onRequest: ({ code, method, seconds }) => {
        context.metrics.prometheusRequests.inc({ code, method });
        context.metrics.prometheusRequestDuration.observe(
          { code, method },
          seconds,
        );
      },
    });
    const queries = historyQueries(settings, namespace);
    const inRange = (query: string) => client.queryRange(query, range);
    const history = clusterHistory(
      {
        cpu: await series('CPU usage query', queries.cpu, inRange),
        memory: await series('memory usage query', queries.memory, inRange),
        podLabels: await series(
          'pod labels query',
          queries.podLabels,
          (query) => client.query(query, endMs),
        ),
      },
      settings,
    );
    const applied = applyHistory(context.model, history, endMs);
    context.logger.info(
      { address, ...applied, ...range },
      'history loaded from Prometheus',
    );
  } catch (error) {
    context.metrics.recoveredErrors.inc({ kind: 'prometheus-history' });
    context.logger.warn(
      { address },
      `history not loaded from Prometheus at ${address}, starting without history: ${describeError(error)}`,
    );
  }
}
