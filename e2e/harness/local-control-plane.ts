import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnvLines, requireEnvValue } from './env-file.ts';

const SCRIPTS = resolve(import.meta.dirname, '..', 'control-plane');

/** A running control plane started by e2e/control-plane/start.sh. */
export interface LocalControlPlane {
  kubeconfig: string;
  logDir: string;
  env: ReadonlyMap<string, string>;
  envFile: string;
  stop(): Promise<void>;
}

/**
 * Starts the local control plane (building the binaries first if this machine has none)
 * and resolves once every component is healthy. The scripts' watchdog stops the cluster
 * if `ownerPid` dies without calling stop(), so a killed test run leaves no processes.
 */
export async function startLocalControlPlane(
  ownerPid: number = process.pid,
): Promise<LocalControlPlane> {
  const envFile = join(
    mkdtempSync(join(tmpdir(), 'tandem-e2e-')),
    'cluster.env',
  );
  await run('start.sh', [
    '--env-file',
    envFile,
    '--watch-pid',
    String(ownerPid),
  ]);
  const env = parseEnvLines(readFileSync(envFile, 'utf8'));
  return {
    kubeconfig: requireEnvValue(env, 'KUBECONFIG'),
    logDir: requireEnvValue(env, 'TANDEM_CP_LOG_DIR'),
    env,
    envFile,
    stop: () => run('stop.sh', [envFile]),
  };
}

/** Runs one of the scripts with its progress on our stderr; rejects with its exit status. */
function run(script: string, args: readonly string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [join(SCRIPTS, script), ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new Error(
            `e2e/control-plane/${script} failed (${signal ?? `exit ${code}`}); its output above names the component`,
          ),
        );
    });
  });
}
