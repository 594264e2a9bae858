import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  chartFiles,
  objectsWithOrigin,
  type CertificateMode,
  type OriginObject,
} from './helm-chart-files.ts';
import { DEPLOY_DIR } from './manifests.ts';

const run = promisify(execFile);

/** The chart: deploy/helm/tandem. */
export const CHART_DIR = join(DEPLOY_DIR, 'helm', 'tandem');

/** The chart's folders whose every file is generated (Chart.yaml is, beside them). */
const GENERATED_FOLDERS = ['crds', 'files'];

/** deploy/'s cert-manager component, the `certManager` mode's addition. */
const CERT_MANAGER_COMPONENT = 'cert-manager';

/**
 * `kubectl kustomize deploy/` (with the cert-manager component for `certManager`) through
 * a throwaway overlay that adds origin annotations, so each object says which file it came
 * from. The overlay lives outside deploy/: kustomize refuses a base that contains it.
 */
export async function renderDeploy(
  kubectl: string,
  mode: CertificateMode,
): Promise<OriginObject[]> {
  const overlay = await mkdtemp(join(tmpdir(), 'tandem-helm-render-'));
  try {
    const deploy = relative(overlay, DEPLOY_DIR);
    const components =
      mode === 'certManager'
        ? [`components: [${join(deploy, CERT_MANAGER_COMPONENT)}]`]
        : [];
    await writeFile(
      join(overlay, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${deploy}]`,
        ...components,
        'buildMetadata: [originAnnotations]',
        '',
      ].join('\n'),
    );
    const { stdout } = await run(kubectl, ['kustomize', overlay], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return objectsWithOrigin(stdout, (path) =>
      relative(DEPLOY_DIR, resolve(overlay, path)),
    );
  } finally {
    await rm(overlay, { recursive: true, force: true });
  }
}

/** What the chart's generated files must hold now: both renders of deploy/, split. */
export async function freshChartFiles(
  kubectl: string,
): Promise<Map<string, string>> {
  return chartFiles({
    selfSigned: await renderDeploy(kubectl, 'selfSigned'),
    certManager: await renderDeploy(kubectl, 'certManager'),
  });
}

async function filesBelow(directory: string): Promise<string[]> {
  if (!existsSync(directory)) return [];
  const entries = await readdir(directory, {
    recursive: true,
    withFileTypes: true,
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The generated files as committed (path relative to the chart → content). */
export async function committedChartFiles(): Promise<Map<string, string>> {
  const paths = [
    join(CHART_DIR, 'Chart.yaml'),
    ...(
      await Promise.all(
        GENERATED_FOLDERS.map((folder) => filesBelow(join(CHART_DIR, folder))),
      )
    ).flat(),
  ].filter((path) => existsSync(path));
  return new Map(
    await Promise.all(
      paths.map(
        async (path) =>
          [relative(CHART_DIR, path), await readFile(path, 'utf8')] as const,
      ),
    ),
  );
}

export interface ChartDrift {
  path: string;
  problem: 'missing' | 'differs' | 'left over';
}

/** The generated files that are missing, stale or left over, by path. */
export function chartDrift(
  committed: ReadonlyMap<string, string>,
  fresh: ReadonlyMap<string, string>,
): ChartDrift[] {
  const paths = new Set([...committed.keys(), ...fresh.keys()]);
  return [...paths]
    .filter((path) => committed.get(path) !== fresh.get(path))
    .sort()
    .map((path) => ({
      path,
      problem: !committed.has(path)
        ? 'missing'
        : !fresh.has(path)
          ? 'left over'
          : 'differs',
    }));
}
