import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { procStatFields } from './measure.js';

/** A cluster started by `e2e/control-plane/start.sh`; `env` is its env file. */
export interface ControlPlane {
  env: NodeJS.Dict<string>;
  /**
   * Stops (SIGSTOP) every component but `keep` until the returned function is called
   * (SIGCONT), so that a latency figure does not count their periodic work on the shared
   * cores. `stop` resumes them first.
   */
  pauseAllBut(keep: readonly string[]): () => void;
  stop(): Promise<void>;
}

/** The components the API server needs to answer: the only ones a paused cluster keeps. */
export const API_SERVER_AND_STORE = ['etcd', 'kube-apiserver'];

/**
 * Starts the local control plane on free ports without building it: the benchmarks only
 * use binaries an earlier `e2e/control-plane/build.sh` left in the cache, and report the
 * figure as skipped otherwise (a cold build takes 15 minutes). The scripts' watchdog
 * stops the cluster if this process dies before `stop`. `env` adds to (or overrides) this
 * process's environment for start.sh: its tunables, e.g. `TANDEM_CP_NODE_PODS`.
 */
export async function startControlPlane(
  root: string,
  env: NodeJS.Dict<string> = {},
): Promise<ControlPlane | { skipped: string }> {
  const scripts = join(root, 'e2e', 'control-plane');
  const envDir = mkdtempSync(join(tmpdir(), 'tandem-bench-'));
  const envFile = join(envDir, 'cp.env');
  const { code, stderr } = await runScript(
    join(scripts, 'start.sh'),
    ['--no-build', '--env-file', envFile, '--watch-pid', String(process.pid)],
    env,
  );
  const missing = /FAILED: binary \S+ missing.*/.exec(stderr);
  if (code !== 0 && missing !== null) return { skipped: missing[0] };
  if (code !== 0)
    throw new Error(
      `e2e/control-plane/start.sh exited with ${code}:\n${stderr}`,
    );
  const clusterEnv = parseEnv(readFileSync(envFile, 'utf8'));
  let paused: number[] = [];
  const resume = () => {
    signal(paused, 'SIGCONT');
    paused = [];
  };
  return {
    env: clusterEnv,
    pauseAllBut: (keep) => {
      resume();
      paused = componentPids(clusterEnv.TANDEM_CP_STATE_DIR ?? '', keep);
      signal(paused, 'SIGSTOP');
      return resume;
    },
    stop: async () => {
      resume();
      const stopped = await runScript(join(scripts, 'stop.sh'), [envFile]);
      if (stopped.code !== 0)
        throw new Error(`e2e/control-plane/stop.sh failed:\n${stopped.stderr}`);
      rmSync(envDir, { recursive: true });
    },
  };
}

/**
 * The pids of the running components not in `keep`, from start.sh's `pids` file (name, pid
 * and start time per line: a pid whose start time differs now belongs to another process).
 */
function componentPids(stateDir: string, keep: readonly string[]): number[] {
  return readFileSync(join(stateDir, 'pids'), 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter(
      ([name, pid, started]) =>
        name !== undefined &&
        name !== 'watcher' &&
        !keep.includes(name) &&
        pid !== undefined &&
        startTime(pid) === started,
    )
    .map(([, pid]) => Number(pid));
}

/** Field 22 of /proc/<pid>/stat: when the process started. */
function startTime(pid: string): string | undefined {
  try {
    return procStatFields(pid)[19];
  } catch {
    return undefined;
  }
}

function signal(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // Gone already: nothing to pause or resume.
    }
  }
}

/** Runs a script with stdout ignored, collecting its progress (stderr) for the messages above. */
function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.Dict<string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}
