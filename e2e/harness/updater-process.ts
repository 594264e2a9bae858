import { join } from 'node:path';
import {
  REPO_ROOT,
  startApp,
  type AppBinary,
  type AppProcess,
} from './app-process.ts';

const UPDATER: AppBinary = {
  project: 'updater',
  bin: join(REPO_ROOT, 'apps', 'updater', 'bin', 'tandem-updater.mjs'),
  distMain: join(REPO_ROOT, 'apps', 'updater', 'dist', 'main.js'),
};

export interface StartUpdaterOptions {
  kubeconfig: string;
  /** `--updater-interval`, in whole seconds. */
  intervalSeconds: number;
  /** More flags, e.g. `--vpa-object-namespace=x`, `--dry-run`. */
  extraArgs?: string[];
  env?: Record<string, string>;
}

/** The updater's process; `url` is its ops server (/metrics, /healthz, /readyz). */
export interface UpdaterProcess extends AppProcess {
  /** How many `"msg":"cycle done"` lines were logged so far. */
  cycleCount(): number;
}

/** Starts the updater against the cluster and resolves once its ops server listens. */
export async function startUpdater({
  kubeconfig,
  intervalSeconds,
  extraArgs = [],
  env,
}: StartUpdaterOptions): Promise<UpdaterProcess> {
  const started = await startApp({
    app: UPDATER,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--updater-interval=${intervalSeconds}s`,
      '--address=127.0.0.1:0',
      ...extraArgs,
    ],
    env,
    readyMessage: 'ops server listening',
  });
  return Object.assign(started, {
    cycleCount: () =>
      started.entries().filter((entry) => entry.msg === 'cycle done').length,
  });
}
