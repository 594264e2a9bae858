import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLUSTER_ENV } from './cluster-env.ts';
import { httpGet } from './http.ts';
import { waitFor } from './wait.ts';

/** One series to write: metric name, labels, and points as [unix seconds, value]. */
export interface WrittenSeries {
  name: string;
  labels: Record<string, string>;
  points: [timeSeconds: number, value: number][];
}

/** One series of a Prometheus `matrix` answer. */
export interface MatrixSeries {
  metric: Record<string, string>;
  values: [timeSeconds: number, value: string][];
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** GET `/api/v1/<endpoint>`; the `result` of a matrix answer, or an error with the body. */
  queryMatrix(
    endpoint: 'query' | 'query_range',
    params: Record<string, string>,
  ): Promise<MatrixSeries[]>;
  /** Prometheus's own log so far. */
  logs(): string;
  /** SIGTERM, wait for the exit (SIGKILL after 15 s), delete the data. */
  stop(): Promise<void>;
}

/**
 * OpenMetrics text: one sample per line with its timestamp in seconds, `# EOF` last.
 * No TYPE lines: untyped samples keep their names (a typed counter would need the
 * `_total` suffix split off), and the queries do not care about types.
 */
export function openMetricsText(series: readonly WrittenSeries[]): string {
  const lines = series.flatMap(({ name, labels, points }) => {
    const labelText = Object.entries(labels)
      .map(([label, value]) => `${label}=${JSON.stringify(value)}`)
      .join(',');
    return points.map(
      ([time, value]) => `${name}{${labelText}} ${value} ${time}`,
    );
  });
  return `${lines.join('\n')}\n# EOF\n`;
}

/** A local TCP port nothing listens on (the kernel's pick, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string')
    throw new Error('no TCP port from the kernel');
  return address.port;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

/** Log file of the run: in the e2e log dir (printed when a test fails) when there is one. */
function logPath(dataDir: string): string {
  const logDir = process.env[CLUSTER_ENV.logDir];
  return logDir
    ? join(logDir, `prometheus-${basename(dataDir)}.log`)
    : join(dataDir, 'prometheus.log');
}

/** A `host:port` to scrape each second, at `/metrics`. */
export interface ScrapeTarget {
  job: string;
  address: string;
}

function configText(scrape: ScrapeTarget | undefined): string {
  const global = 'global:\n  scrape_interval: 1m\n';
  if (scrape === undefined) return global;
  return `${global}scrape_configs:\n  - job_name: ${JSON.stringify(scrape.job)}\n    scrape_interval: 1s\n    static_configs:\n      - targets: [${JSON.stringify(scrape.address)}]\n`;
}

/**
 * A real Prometheus (the `prometheus` and `promtool` binaries on PATH) serving `series`:
 * they are turned into TSDB blocks with `promtool tsdb create-blocks-from openmetrics`;
 * it scrapes nothing else, or `scrape` each second. Blocks may hold any past time (they
 * are older than the empty head, so nothing counts as out of order) as long as it is
 * within the default 15 d retention. Resolves once every written series is queryable.
 */
export async function startPrometheus(
  series: readonly WrittenSeries[],
  scrape?: ScrapeTarget,
): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-prometheus-'));
  const dataDir = join(dir, 'data');
  const input = join(dir, 'series.om');
  const config = join(dir, 'prometheus.yml');
  await writeFile(input, openMetricsText(series));
  await writeFile(config, configText(scrape));
  const log = logPath(dir);
  const logFd = openSync(log, 'a');
  const logs = () => readFileSync(log, 'utf8');
  let prometheus: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;

  const stop = async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus?.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    closeSync(logFd);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const promtool = spawn(
      'promtool',
      ['tsdb', 'create-blocks-from', 'openmetrics', input, dataDir],
      { stdio: ['ignore', logFd, logFd] },
    );
    const promtoolExit = await exitOf(promtool);
    if (promtoolExit !== 0)
      throw new Error(`promtool exited with ${promtoolExit}`);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--storage.tsdb.path=${dataDir}`,
        `--config.file=${config}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', logFd, logFd] },
    );
    exited = exitOf(prometheus);
    const running = prometheus;

    const queryMatrix: PrometheusServer['queryMatrix'] = async (
      endpoint,
      params,
    ) => {
      const { status, body } = await httpGet(
        `${url}/api/v1/${endpoint}?${new URLSearchParams(params)}`,
      );
      const answer = JSON.parse(body) as {
        status?: string;
        data?: { resultType?: string; result?: MatrixSeries[] };
      };
      if (status !== 200 || answer.data?.resultType !== 'matrix')
        throw new Error(`HTTP ${status}, not a matrix: ${body.slice(0, 300)}`);
      return answer.data.result ?? [];
    };

    const alive = async () => {
      if (running.exitCode !== null)
        throw new Error(`prometheus exited with ${running.exitCode}`);
    };
    await waitFor(
      `Prometheus at ${url} to be ready`,
      async () => {
        await alive();
        return (await httpGet(`${url}/-/ready`)).status === 200
          ? true
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Ready is not yet "blocks loaded and queryable": wait until every series answers.
    const times = series.flatMap(({ points }) => points.map(([time]) => time));
    const newest = Math.max(...times);
    const spanSeconds = newest - Math.min(...times) + 1;
    await waitFor(
      `Prometheus at ${url} to answer all ${series.length} written series`,
      async () => {
        await alive();
        const found = await queryMatrix('query', {
          query: `{__name__=~".+"}[${spanSeconds}s]`,
          time: String(newest),
        });
        return found.length === series.length ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
    return { url, queryMatrix, logs, stop };
  } catch (error) {
    const text = logs();
    await stop();
    throw new Error(
      `Prometheus did not start: ${(error as Error).message}\nits log:\n${text.slice(-4000)}`,
      { cause: error },
    );
  }
}
