import { join } from 'node:path';
import {
  REPO_ROOT,
  startApp,
  type AppBinary,
  type AppProcess,
} from './app-process.ts';

const DASHBOARD: AppBinary = {
  project: 'dashboard',
  bin: join(REPO_ROOT, 'apps', 'dashboard', 'bin', 'tandem-dashboard.mjs'),
  distMain: join(REPO_ROOT, 'apps', 'dashboard', 'dist', 'main.js'),
};

export interface StartDashboardOptions {
  kubeconfig: string;
  /** `--sample-interval`, in whole seconds; default 15 (the HPA's sync period). */
  sampleIntervalSeconds?: number;
  /** `host:port`; default an ephemeral port on 127.0.0.1. */
  address?: string;
  extraArgs?: string[];
}

/** Starts the dashboard against the cluster; resolves once it serves, `url` its pages. */
export async function startDashboard({
  kubeconfig,
  sampleIntervalSeconds = 15,
  address = '127.0.0.1:0',
  extraArgs = [],
}: StartDashboardOptions): Promise<AppProcess> {
  return startApp({
    app: DASHBOARD,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--address=${address}`,
      `--sample-interval=${sampleIntervalSeconds}s`,
      ...extraArgs,
    ],
    readyMessage: 'dashboard listening',
  });
}
