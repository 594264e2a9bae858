import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedRateRuns } from './load-runs.js';
import { processCpuMs, residentBytes } from './measure.js';
import { scrapeValue } from './metrics-adapter.bench.js';
import type { Figure } from './report.js';
import { getText, startServedApp, stopServedApp } from './served-app.js';
import { startStandInCluster } from './stand-in-cluster.js';

const SHAPE = { pods: 6_000, namespaces: 100, replicaSets: 2_000 };
/** The default (the HPA's sync period): the history's rings are sized by it. */
const SAMPLE_INTERVAL = '15s';
/** A few users and scripts polling the API at once. */
const RATE = 20;
/**
 * Each latency is the median of RUNS runs with their spread; a run is one sample interval
 * long, so each meets one sample.
 */
const RUNS = 3;
const RUN_MS = 15_000;
const CONNECTIONS = 4;
const READY_TIMEOUT_MS = 300_000;
const MIB = 2 ** 20;

interface WorkloadsAnswer {
  workloads: { nativeEquivalentReplicas: number | null }[];
}

/**
 * `/api/workloads` of a running dashboard, through express and HTTP: the built binary
 * against an in-process API server stand-in holding 2,000 workloads (100 namespaces, each
 * a Deployment of 3 pods with a VPA and an HPA on Tandem's metric; see
 * `stand-in-workloads.ts`), sampling every 15 s while GETs arrive at 20 a second on 4
 * keep-alive connections, asking for no compression (as curl does): three runs of 15 s,
 * the median of their percentiles with the spread, and the dashboard's CPU per answer.
 * Latency counts from each request's due time (open loop). The first answer must hold
 * every workload with a native-equivalent figure, so the figure is the real answer's.
 * Also its resident set, used heap and memory outside the heap after the load.
 */
export async function dashboardServedFigures(root: string): Promise<Figure[]> {
  const app = join(root, 'apps', 'dashboard');
  if (!existsSync(join(app, 'dist', 'main.js')))
    throw new Error(
      'the dashboard is not built: run npx nx run dashboard:build',
    );
  const dir = mkdtempSync(join(tmpdir(), 'tandem-bench-dashboard-'));
  const cluster = await startStandInCluster({
    shape: SHAPE,
    kubeconfigFile: join(dir, 'kubeconfig'),
    workloads: true,
  });
  try {
    const dashboard = await startServedApp({
      what: 'dashboard',
      bin: join(app, 'bin', 'tandem-dashboard.mjs'),
      args: [
        `--kubeconfig=${cluster.kubeconfigFile}`,
        '--address=127.0.0.1:0',
        `--sample-interval=${SAMPLE_INTERVAL}`,
      ],
      serverMessage: 'dashboard listening',
      opsMessage: 'dashboard listening',
      readyTimeoutMs: READY_TIMEOUT_MS,
    });
    try {
      const url = `${dashboard.serverUrl}/api/workloads`;
      const body = await getText(url);
      const { workloads } = JSON.parse(body) as WorkloadsAnswer;
      const withNative = workloads.filter(
        (workload) => workload.nativeEquivalentReplicas !== null,
      ).length;
      if (
        workloads.length !== SHAPE.replicaSets ||
        withNative !== workloads.length
      )
        throw new Error(
          `the dashboard answered ${workloads.length} workloads, ${withNative} with a native figure; expected ${SHAPE.replicaSets} of each`,
        );
      const pid = dashboard.process.pid ?? Number.NaN;
      const load = await fixedRateRuns(
        {
          url,
          method: 'GET',
          headers: {},
          connections: CONNECTIONS,
          rate: RATE,
        },
        {
          runs: RUNS,
          runMs: RUN_MS,
          what: 'dashboard',
          serverCpuMs: () => processCpuMs(pid),
        },
      );
      if (cluster.unexpected.length > 0)
        throw new Error(
          `the dashboard asked the stand-in for what it does not serve: ${cluster.unexpected.slice(0, 5).join(', ')}`,
        );
      const rssBytes = residentBytes(dashboard.process.pid, 'VmRSS');
      const heapBytes = await scrapeValue(
        dashboard.opsUrl,
        'nodejs_heap_size_used_bytes',
      );
      const externalBytes = await scrapeValue(
        dashboard.opsUrl,
        'nodejs_external_memory_bytes',
      );
      const what = `${SHAPE.replicaSets} workloads, ${(Buffer.byteLength(body) / MIB).toFixed(1)} MiB, ${RATE}/s over HTTP`;
      return [
        {
          name: `dashboard served: /api/workloads, ${what}, median`,
          ...load.p50,
          unit: 'ms',
          target: undefined,
        },
        {
          name: `dashboard served: /api/workloads, ${what}, p99`,
          ...load.p99,
          unit: 'ms',
          target: { comparison: '<=', value: 50 },
        },
        {
          name: `dashboard served: dashboard CPU per answer, its sampling included`,
          ...load.cpu,
          unit: 'ms',
          target: undefined,
        },
        {
          name: `dashboard served: resident set with ${SHAPE.replicaSets} workloads and ${SHAPE.pods} pods cached`,
          value: rssBytes / MIB,
          unit: 'MiB',
          target: undefined,
        },
        {
          name: `dashboard served: used heap with ${SHAPE.replicaSets} workloads and ${SHAPE.pods} pods cached`,
          value: heapBytes / MIB,
          unit: 'MiB',
          target: undefined,
        },
        {
          name: `dashboard served: memory outside the heap (buffers, typed arrays)`,
          value: externalBytes / MIB,
          unit: 'MiB',
          target: undefined,
        },
      ];
    } finally {
      await stopServedApp(dashboard.process);
    }
  } finally {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
