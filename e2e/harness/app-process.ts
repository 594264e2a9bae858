import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLUSTER_ENV } from './cluster-env.ts';
import { waitFor } from './wait.ts';

/** The repository root: apps are started from there, as the contract says. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** One JSON log line of a Tandem app (pino): `msg`, `level`, `time` and the fields. */
export interface LogEntry {
  msg?: string;
  level?: number | string;
  [field: string]: unknown;
}

/** A Tandem app as a host process: where its entry point is and how Nx builds it. */
export interface AppBinary {
  /** The Nx project, e.g. `recommender`; also names the log files. */
  project: string;
  /** The bin script the suites start. */
  bin: string;
  /** The built entry the bin imports; built with Nx when missing. */
  distMain: string;
  /** True when `bin` points at another build (an unpacked release): no build check. */
  external?: boolean;
}

export interface StartAppOptions {
  app: AppBinary;
  args: string[];
  /** Extra environment (OTEL_EXPORTER_OTLP_ENDPOINT, POD_NAME, ...). */
  env?: Record<string, string>;
  /** The log message that means "started"; its `url` field becomes `AppProcess.url`. */
  readyMessage: string;
  /** How long to wait for `readyMessage`; default 60 s. */
  startTimeoutMs?: number;
}

export interface AppProcess {
  /** The `url` field of the ready log line. */
  url: string;
  pid: number | undefined;
  /** stdout and stderr so far, interleaved in arrival order. */
  logs(): string;
  /** The stdout lines that parse as JSON objects. */
  entries(): LogEntry[];
  /** The last `n` lines of output, for failure messages. */
  tail(n?: number): string;
  /** The exit code once exited (null when killed by a signal), else undefined. */
  exitStatus():
    | { code: number | null; signal: NodeJS.Signals | null }
    | undefined;
  /** SIGSTOP: the process is frozen, its timers and sockets waiting, as in a paused VM. */
  pause(): void;
  /** SIGCONT after `pause`: its overdue timers fire at once. */
  resume(): void;
  /** SIGTERM, wait for the exit (SIGKILL after `timeoutMs`), resolve with the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
}

const running = new Set<AppProcess>();

/** Stops every app process this worker started and has not stopped: for afterEach/afterAll. */
export async function stopAllApps(): Promise<void> {
  await Promise.all([...running].map((app) => app.stop()));
}

const buildChecks = new Map<string, Promise<void>>();

/**
 * The built app must exist before the bin can run it. `npm ci` builds it; when the file is
 * missing (a fresh checkout of new sources) build it once per worker with Nx.
 */
export function ensureAppBuilt(app: AppBinary): Promise<void> {
  let check = buildChecks.get(app.project);
  if (check === undefined) {
    check = buildApp(app);
    buildChecks.set(app.project, check);
  }
  return check;
}

async function buildApp(app: AppBinary): Promise<void> {
  if (!existsSync(app.bin))
    throw new Error(
      `${app.bin} does not exist: the ${app.project} app is not there to test`,
    );
  if (app.external || existsSync(app.distMain)) return;
  const child = spawn('npx', ['nx', 'run', `${app.project}:build`], {
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
  if (code !== 0 || !existsSync(app.distMain))
    throw new Error(
      `npx nx run ${app.project}:build exited with ${code} and ${app.distMain} ${existsSync(app.distMain) ? 'exists' : 'is still missing'}:\n${output.slice(-3000)}`,
    );
}

/** `<TANDEM_E2E_LOG_DIR>/<project>-<n>.log`, the first n not used yet; undefined without a log dir. */
export function nextLogFile(project: string): string | undefined {
  const logDir = process.env[CLUSTER_ENV.logDir];
  if (logDir === undefined || logDir === '') return undefined;
  for (let n = 1; ; n += 1) {
    const path = join(logDir, `${project}-${n}.log`);
    if (!existsSync(path)) return path;
  }
}

export function parseEntries(stdout: string): LogEntry[] {
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
 * Starts `node <bin> <args>` and waits until it logs `readyMessage` with a `url`. Output is
 * kept in memory and mirrored to the e2e log dir, so the log-on-failure environment prints
 * it when a test fails.
 */
export async function startApp({
  app,
  args: appArgs,
  env = {},
  readyMessage,
  startTimeoutMs = 60_000,
}: StartAppOptions): Promise<AppProcess> {
  await ensureAppBuilt(app);
  const args = [app.bin, ...appArgs];
  // No inherited OpenTelemetry settings: only what the test passes.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')),
  );
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = nextLogFile(app.project);
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
  let paused = false;
  const signal = (name: 'SIGSTOP' | 'SIGCONT') => {
    child.kill(name);
    paused = name === 'SIGSTOP';
  };
  const started: AppProcess = {
    url: '',
    pid: child.pid,
    logs: () => output,
    entries,
    tail,
    exitStatus: () => exit,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    stop: (timeoutMs = 15_000) => {
      stopping ??= (async () => {
        if (exit === undefined) {
          child.kill('SIGTERM');
          // A paused process gets the SIGTERM once it runs again.
          if (paused) signal('SIGCONT');
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
        running.delete(started);
        return exit?.code ?? null;
      })();
      return stopping;
    },
  };
  running.add(started);

  try {
    const ready = await Promise.race([
      waitFor(
        `the ${app.project} to log "${readyMessage}"`,
        async () => {
          const entry = entries().find(
            (candidate) => candidate.msg === readyMessage,
          );
          return typeof entry?.['url'] === 'string' ? entry : undefined;
        },
        { timeoutMs: startTimeoutMs },
        async () => `output tail:\n${tail()}`,
      ),
      exited.then((code) => {
        throw new Error(
          `the ${app.project} exited (code ${code}, signal ${exit?.signal ?? 'none'}) before logging "${readyMessage}"; output tail:\n${tail()}`,
        );
      }),
    ]);
    started.url = ready['url'] as string;
    return started;
  } catch (error) {
    await started.stop();
    throw error;
  }
}
