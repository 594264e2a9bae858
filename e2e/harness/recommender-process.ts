import { join } from 'node:path';
import {
  REPO_ROOT,
  startApp,
  type AppBinary,
  type AppProcess,
} from './app-process.ts';

export { REPO_ROOT, type LogEntry } from './app-process.ts';

/**
 * The entry point the suites start. `TANDEM_RECOMMENDER_BIN` points them at another build
 * of the same app (e.g. an unpacked release); the build check is then skipped.
 */
export const RECOMMENDER_BIN_OVERRIDE_ENV = 'TANDEM_RECOMMENDER_BIN';
const RECOMMENDER: AppBinary = {
  project: 'recommender',
  bin:
    process.env[RECOMMENDER_BIN_OVERRIDE_ENV] ||
    join(REPO_ROOT, 'apps', 'recommender', 'bin', 'tandem-recommender.mjs'),
  distMain: join(REPO_ROOT, 'apps', 'recommender', 'dist', 'main.js'),
  external: Boolean(process.env[RECOMMENDER_BIN_OVERRIDE_ENV]),
};

/**
 * A test's `--recommender-interval`: a cycle every 2 s. metrics-server has a new sample
 * every 10 s and a CPU sample no newer than the last is dropped (upstream's
 * pkg/recommender/model/container.go, addCPUSample), so a shorter interval than the
 * default 1 min changes no recommendation, only the waits for a cycle.
 */
export const TEST_INTERVAL_SECONDS = 2;

export interface StartRecommenderOptions {
  kubeconfig: string;
  /** `--recommender-interval`, in whole seconds. */
  intervalSeconds: number;
  /** More flags, e.g. `--recommender-name=x`, `--memory-saver`. */
  extraArgs?: string[];
  /** Extra environment (OTEL_EXPORTER_OTLP_ENDPOINT, POD_NAME, ...). */
  env?: Record<string, string>;
  /** How long to wait for the "ops server listening" line; default 60 s. */
  startTimeoutMs?: number;
}

/** The recommender's process; `url` is its ops server (/metrics, /healthz, /readyz). */
export interface RecommenderProcess extends AppProcess {
  /** How many `"msg":"cycle done"` lines were logged so far. */
  cycleCount(): number;
}

/** Starts the recommender against the cluster and waits until its ops server listens. */
export function startRecommender({
  kubeconfig,
  intervalSeconds,
  extraArgs = [],
  env,
  startTimeoutMs,
}: StartRecommenderOptions): Promise<RecommenderProcess> {
  return startRecommenderWithArgs(
    [
      `--kubeconfig=${kubeconfig}`,
      `--recommender-interval=${intervalSeconds}s`,
      '--address=127.0.0.1:0',
      ...extraArgs,
    ],
    { env, startTimeoutMs },
  );
}

/**
 * Starts the recommender with exactly `args` (e.g. upstream's manifests' list; the cluster
 * then comes from `KUBECONFIG` in `env`) and waits until its ops server listens.
 */
export async function startRecommenderWithArgs(
  args: string[],
  options: Pick<StartRecommenderOptions, 'env' | 'startTimeoutMs'> = {},
): Promise<RecommenderProcess> {
  const started = await startApp({
    app: RECOMMENDER,
    args,
    env: options.env,
    readyMessage: 'ops server listening',
    startTimeoutMs: options.startTimeoutMs,
  });
  return Object.assign(started, {
    cycleCount: () =>
      started.entries().filter((entry) => entry.msg === 'cycle done').length,
  });
}
