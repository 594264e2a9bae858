import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CertificateFiles } from '@tandem/serving';
import { mediansOfRuns, residentBytes } from './measure.js';
import { scrapeValue } from './metrics-adapter.bench.js';
import { podAt, type ClusterShape } from './realistic-cluster.js';
import { mapMeasured, type Figure } from './report.js';
import {
  loopbackCertificates,
  startServedApp,
  stopServedApp,
} from './served-app.js';
import { startStandInCluster } from './stand-in-cluster.js';

const NAMESPACES = 500;
const PODS = 50_000;
/** Waited after ready before sampling: the first lists' garbage is collected by then. */
const SETTLE_MS = 5_000;
const SAMPLES = 5;
const EMPTY_RUNS = 3;
const SAMPLE_INTERVAL_MS = 1_000;
/** Listing 50,000 pods takes minutes on a busy 2-core machine (the stand-in makes them too). */
const READY_TIMEOUT_MS = 600_000;
const MIB = 2 ** 20;
const KIB = 2 ** 10;

interface Footprint {
  readyS: number;
  rssBytes: number;
  /** The largest RSS the process ever had (VmHWM): the lists' peak, what a limit must hold. */
  peakRssBytes: number;
  heapBytes: number;
}

/**
 * The metrics adapter's memory on an empty cluster and on one of 50,000 realistic pods (two
 * per ReplicaSet, in 500 namespaces; see `podAt`), served by an in-process API server
 * stand-in: the built binary started at its default page size, its time from spawn to
 * /readyz 200 (every cache synced), then its resident set (VmRSS) and used heap, each the
 * largest of a few samples taken once it has settled, and the largest resident set it
 * ever had (VmHWM, the lists' peak). On the empty cluster each figure is the median of
 * EMPTY_RUNS starts with their spread; the loaded cluster's start lists for a minute or
 * more, so it runs once (a single cold start, like the recommender's first cycle).
 * Per-pod bytes are the RSS difference over the pod count.
 * `TANDEM_BENCH_ADAPTER_SCALE_PODS=<n>` measures another size (the ReplicaSets follow at
 * one per two pods), for a build that cannot hold 50,000.
 */
export async function metricsAdapterScaleFigures(
  root: string,
): Promise<Figure[]> {
  const app = join(root, 'apps', 'metrics-adapter');
  if (!existsSync(join(app, 'dist', 'main.js')))
    throw new Error(
      'the metrics adapter is not built: run npx nx run metrics-adapter:build',
    );
  const bin = join(app, 'bin', 'tandem-metrics-adapter.mjs');
  const pods = Number(process.env.TANDEM_BENCH_ADAPTER_SCALE_PODS ?? PODS);
  const shape = {
    pods,
    namespaces: NAMESPACES,
    replicaSets: Math.ceil(pods / 2),
  };
  const dir = mkdtempSync(join(tmpdir(), 'tandem-bench-adapter-scale-'));
  try {
    const { ca, files } = await loopbackCertificates(dir);
    const run = (what: ClusterShape) =>
      footprint(bin, files, ca.certPem, what, dir);
    const empty = await mediansOfRuns(EMPTY_RUNS, () =>
      run({ ...shape, pods: 0, replicaSets: 0 }),
    );
    const full = await run(shape);
    const size = `${pods.toLocaleString('en-US')} pods, ${shape.replicaSets.toLocaleString('en-US')} ReplicaSets`;
    return [
      {
        name: `stand-in pod as JSON (${size})`,
        value: meanPodJsonBytes(shape) / KIB,
        unit: 'KiB',
        target: undefined,
      },
      {
        name: 'metrics adapter start to ready, empty cluster',
        ...empty.readyS,
        unit: 's',
        target: undefined,
      },
      {
        name: 'metrics adapter RSS, empty cluster',
        ...mapMeasured(empty.rssBytes, (bytes) => bytes / MIB),
        unit: 'MiB',
        target: { comparison: '<=', value: 100 },
      },
      {
        name: `metrics adapter start to ready, ${size}`,
        value: full.readyS,
        unit: 's',
        target: undefined,
      },
      {
        name: `metrics adapter RSS, ${size}`,
        value: full.rssBytes / MIB,
        unit: 'MiB',
        target: { comparison: '<=', value: 256 },
      },
      {
        name: `metrics adapter peak RSS while listing, ${size}`,
        value: full.peakRssBytes / MIB,
        unit: 'MiB',
        target: undefined,
      },
      {
        name: `metrics adapter heap used, ${size}`,
        value: full.heapBytes / MIB,
        unit: 'MiB',
        target: undefined,
      },
      {
        name: 'metrics adapter RSS per pod (difference over the empty cluster)',
        value: (full.rssBytes - empty.rssBytes.value) / pods / KIB,
        unit: 'KiB',
        target: undefined,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One adapter started on a stand-in cluster of `shape`, measured, and stopped. */
async function footprint(
  bin: string,
  files: CertificateFiles,
  caPem: string,
  shape: ClusterShape,
  dir: string,
): Promise<Footprint> {
  const cluster = await startStandInCluster({
    shape,
    requestheaderCaPem: caPem,
    kubeconfigFile: join(dir, `kubeconfig-${shape.pods}`),
  });
  try {
    const spawned = performance.now();
    const adapter = await startServedApp({
      what: `metrics adapter (${shape.pods} pods)`,
      bin,
      args: [
        `--kubeconfig=${cluster.kubeconfigFile}`,
        `--tls-cert-file=${files.certFile}`,
        `--tls-private-key-file=${files.keyFile}`,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--address=127.0.0.1:0',
      ],
      serverMessage: 'custom metrics API listening',
      readyTimeoutMs: READY_TIMEOUT_MS,
    });
    const readyS = (performance.now() - spawned) / 1000;
    try {
      await sleep(SETTLE_MS);
      let rssBytes = 0;
      let heapBytes = 0;
      for (let sample = 0; sample < SAMPLES; sample += 1) {
        rssBytes = Math.max(
          rssBytes,
          residentBytes(adapter.process.pid, 'VmRSS'),
        );
        heapBytes = Math.max(
          heapBytes,
          await scrapeValue(adapter.opsUrl, 'nodejs_heap_size_used_bytes'),
        );
        await sleep(SAMPLE_INTERVAL_MS);
      }
      if (cluster.unexpected.length > 0)
        throw new Error(
          `the adapter asked the stand-in for what it does not serve: ${cluster.unexpected.slice(0, 5).join(', ')}`,
        );
      const peakRssBytes = residentBytes(adapter.process.pid, 'VmHWM');
      return { readyS, rssBytes, peakRssBytes, heapBytes };
    } finally {
      await stopServedApp(adapter.process);
    }
  } finally {
    await cluster.close();
  }
}

/** The mean JSON size of a sample of the stand-in's pods (bytes). */
function meanPodJsonBytes(shape: ClusterShape): number {
  const step = Math.max(1, Math.floor(shape.pods / 100));
  let bytes = 0;
  let count = 0;
  for (let index = 0; index < shape.pods; index += step) {
    bytes += Buffer.byteLength(JSON.stringify(podAt(shape, index)));
    count += 1;
  }
  return count === 0 ? Number.NaN : bytes / count;
}
