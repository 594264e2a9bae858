import { readFile } from 'node:fs/promises';
import { historyFromSeries, historySelector } from '@tandem/dashboard-core';
import {
  authorizationHeader,
  matrixSeries,
  prometheusClient,
  type QueryRange,
} from '@tandem/prometheus-api';
import type { OlderHistory } from './dashboard-routes.js';
import type { PrometheusFlags } from './flags.js';

/** History past memory's, read back from a Prometheus that scrapes the dashboard's gauges. */
export function prometheusHistory(
  flags: PrometheusFlags,
  minStepMs: number,
): OlderHistory {
  const queryRange = async (query: string, range: QueryRange) => {
    const token =
      flags.bearerTokenFile === ''
        ? ''
        : (await readFile(flags.bearerTokenFile, 'utf8')).trim();
    return prometheusClient({
      address: flags.url,
      insecure: false,
      queryTimeoutMs: flags.queryTimeoutMs,
      timeoutFlag: '--prometheus-query-timeout',
      authorization: authorizationHeader(
        { bearerToken: token, username: '', password: '' },
        {},
      ),
    }).queryRange(query, range);
  };
  return {
    minStepMs,
    read: async (workload, range) =>
      historyFromSeries(
        matrixSeries(await queryRange(historySelector(workload), range)),
      ),
  };
}
