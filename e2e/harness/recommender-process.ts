import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLUSTER_ENV } from './cluster-env.ts';
import { waitFor } from './wait.ts';

/** The repository root: the recommender is started from there, as the contract says. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/**
 * The entry point the suites start. `TANDEM_RECOMMENDER_BIN` points them at another build
 * of the same app (e.g. an unpacked release); the build check is then skipped.
 */
export const RECOMMENDER_BIN_OVERRIDE_ENV = 'TANDEM_RECOMMENDER_BIN';
export const RECOMMENDER_BIN =
  process.env[RECOMMENDER_BIN_OVERRIDE_ENV] ||
  join(REPO_ROOT, 'apps', 'recommender', 'bin', 'tandem-recommender.mjs');
export const RECOMMENDER_DIST_MAIN = join(
  REPO_ROOT,
  'apps',
  'recommender',
  'dist',
  'main.js',
);

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

/** One JSON log line of the recommender (pino): `msg`, `level`, `time` and the fields. */
export interface LogEntry {
  msg?: string;
  level?: number | string;
  [field: string]: unknown;
}

export interface RecommenderProcess {
  /** The ops server, `http://127.0.0.1:<port>` (serves /metrics, /healthz, /readyz). */
  url: string;
  pid: number | undefined;
  /** stdout and stderr so far, interleaved in arrival order. */
  logs(): string;
  /** The stdout lines that parse as JSON objects. */
  entries(): LogEntry[];
  /** How many `"msg":"cycle done"` lines were logged so far. */
  cycleCount(): number;
  /** The last `n` lines of output, for failure messages. */
  tail(n?: number): string;
  /** The exit code once exited (null when killed by a signal), else undefined. */
  exitStatus():
    | { code: number | null; signal: NodeJS.Signals | null }
    | undefined;
  /** SIGTERM, wait for the exit (SIGKILL after `timeoutMs`), resolve with the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
}

const running = new Set<RecommenderProcess>();

/** Stops every recommender this worker started and has not stopped: for afterEach/afterAll. */
export async function stopAllRecommenders(): Promise<void> {
  await Promise.all([...running].map((recommender) => recommender.stop()));
}

let buildChecked: Promise<void> | undefined;

/**
 * The built app must exist before the bin can run it. `npm ci` builds it; when the file is
 * missing (a fresh checkout of new sources) build it once per worker with Nx.
 */
export function ensureRecommenderBuilt(): Promise<void> {
  buildChecked ??= (async () => {
    if (!existsSync(RECOMMENDER_BIN))
      throw new Error(
        `${RECOMMENDER_BIN} does not exist: the recommender app is not there to test`,
      );
    if (
      process.env[RECOMMENDER_BIN_OVERRIDE_ENV] ||
      existsSync(RECOMMENDER_DIST_MAIN)
    )
      return;
    const child = spawn('npx', ['nx', 'run', 'recommender:build'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit, reject) => {
      child.once('error', reject);
      child.once('exit', resolveExit);
    });
    if (code !== 0 || !existsSync(RECOMMENDER_DIST_MAIN))
      throw new Error(
        `npx nx run recommender:build exited with ${code} and ${RECOMMENDER_DIST_MAIN} ${existsSync(RECOMMENDER_DIST_MAIN) ? 'exists' : 'is still missing'}:\n${output.slice(-3000)}`,
      );
  })();
  return buildChecked;
}

/** `<TANDEM_E2E_LOG_DIR>/recommender-<n>.log`, the first n not used yet; undefined without a log dir. */
function nextLogFile(): string | undefined {
  const logDir = process.env[CLUSTER_ENV.logDir];
  if (logDir === undefined || logDir === '') return undefined;
  for (let n = 1; ; n += 1) {
    const path = join(logDir, `recommender-${n}.log`);
    if (!existsSync(path)) return path;
  }
}

function parseEntries(stdout: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null)
        entries.push(value as LogEntry);
    } catch {
      // a partial last line, or not JSON: not a log entry
    }
  }
  return entries;
}

/**
 * Starts `node apps/recommender/bin/tandem-recommender.mjs` against the cluster and waits
 * until its ops server listens. Output is kept in memory and mirrored to the e2e log dir,
 * so the log-on-failure environment prints it when a test fails.
 */
export async function startRecommender({
  kubeconfig,
  intervalSeconds,
  extraArgs = [],
  env = {},
  startTimeoutMs = 60_000,
}: StartRecommenderOptions): Promise<RecommenderProcess> {
  await ensureRecommenderBuilt();
  const args = [
    RECOMMENDER_BIN,
    `--kubeconfig=${kubeconfig}`,
    `--recommender-interval=${intervalSeconds}s`,
    '--address=127.0.0.1:0',
    ...extraArgs,
  ];
  // No inherited OpenTelemetry settings: only what the test passes.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')),
  );
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = nextLogFile();
  if (logFile !== undefined)
    writeFileSync(
      logFile,
      `# node ${args.map((arg) => JSON.stringify(arg)).join(' ')}\n`,
    );
  let output = '';
  let stdout = '';
  const record = (chunk: Buffer, isStdout: boolean) => {
    const text = chunk.toString();
    output += text;
    if (isStdout) stdout += text;
    if (logFile !== undefined) appendFileSync(logFile, text);
  };
  child.stdout?.on('data', (chunk: Buffer) => record(chunk, true));
  child.stderr?.on('data', (chunk: Buffer) => record(chunk, false));

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<number | null>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolveExit(code);
    });
    child.once('error', (error) => {
      record(Buffer.from(`[harness] spawn error: ${error.message}\n`), false);
      exit ??= { code: null, signal: null };
      resolveExit(null);
    });
  });

  const tail = (n = 30) => output.trimEnd().split('\n').slice(-n).join('\n');
  const entries = () => parseEntries(stdout);
  let stopping: Promise<number | null> | undefined;
  const process_: RecommenderProcess = {
    url: '',
    pid: child.pid,
    logs: () => output,
    entries,
    cycleCount: () =>
      entries().filter((entry) => entry.msg === 'cycle done').length,
    tail,
    exitStatus: () => exit,
    stop: (timeoutMs = 15_000) => {
      stopping ??= (async () => {
        if (exit === undefined) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => {
            if (exit === undefined) {
              record(
                Buffer.from(
                  `[harness] no exit ${timeoutMs / 1000}s after SIGTERM: SIGKILL\n`,
                ),
                false,
              );
              child.kill('SIGKILL');
            }
          }, timeoutMs);
          try {
            await exited;
          } finally {
            clearTimeout(timer);
          }
        }
        running.delete(process_);
        return exit?.code ?? null;
      })();
      return stopping;
    },
  };
  running.add(process_);

  try {
    const listening = await Promise.race([
      waitFor(
        'the recommender to log "ops server listening"',
        async () => {
          const entry = entries().find(
            (candidate) => candidate.msg === 'ops server listening',
          );
          return typeof entry?.['url'] === 'string' ? entry : undefined;
        },
        { timeoutMs: startTimeoutMs },
        async () => `output tail:\n${tail()}`,
      ),
      exited.then((code) => {
        throw new Error(
          `the recommender exited (code ${code}, signal ${exit?.signal ?? 'none'}) before its ops server listened; output tail:\n${tail()}`,
        );
      }),
    ]);
    process_.url = listening['url'] as string;
    return process_;
  } catch (error) {
    await process_.stop();
    throw error;
  }
}
