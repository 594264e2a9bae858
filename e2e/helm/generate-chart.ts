// Regenerates the Helm chart's files from `kubectl kustomize deploy/` (Chart.yaml, crds/,
// files/): run it after any change to deploy/. The kubectl is the control plane's
// (TANDEM_CP_KUBECTL, or built by e2e/control-plane/build.sh), so kustomize's version and
// output are the ones the drift test compares with.
//
// Usage: npx node e2e/helm/generate-chart.ts
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  CHART_DIR,
  chartDrift,
  committedChartFiles,
  freshChartFiles,
} from '../harness/helm-chart-render.ts';

function controlPlaneKubectl(): string {
  const fromEnv = process.env['TANDEM_CP_KUBECTL'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const binDir = execFileSync(
    'bash',
    [
      join(import.meta.dirname, '..', 'control-plane', 'build.sh'),
      '--print-bin-dir',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ).trim();
  return join(binDir, 'kubectl');
}

const fresh = await freshChartFiles(controlPlaneKubectl());
const changed = chartDrift(await committedChartFiles(), fresh);
for (const { path } of changed) {
  const content = fresh.get(path);
  if (content === undefined) await rm(join(CHART_DIR, path));
  else {
    await mkdir(dirname(join(CHART_DIR, path)), { recursive: true });
    await writeFile(join(CHART_DIR, path), content);
  }
}
process.stdout.write(
  changed.length === 0
    ? 'deploy/helm/tandem: up to date\n'
    : `deploy/helm/tandem: regenerated ${changed.map(({ path, problem }) => `${path} (${problem})`).join(', ')}\n`,
);
