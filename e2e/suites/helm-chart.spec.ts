import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  clusterKubeconfig,
  controlPlaneValue,
  isLocalCluster,
} from '../harness/cluster-env.ts';
import { helmBinary, runCommand } from '../harness/helm.ts';
import {
  appOf,
  CHART_APPS,
  GENERATE_CHART_COMMAND,
  type ChartObject,
} from '../harness/helm-chart-files.ts';
import {
  CHART_DIR,
  chartDrift,
  committedChartFiles,
  freshChartFiles,
  renderDeploy,
} from '../harness/helm-chart-render.ts';
import { DEPLOY_DIR, installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';

// The chart is deploy/ in Helm's packaging (ADR 0021): these tests hold it to
// `kubectl kustomize deploy/`, object for object, and check what each value changes. Local
// only: they need the control plane's kubectl (the drift test renders with the kustomize
// the generator uses); on kind, e2e/kind/helm-install.sh installs the chart for real.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const NAMESPACE = 'tandem-system';
/** The labels the chart adds to every object (templates/_helpers.tpl, tandem.labels). */
const HELM_LABELS = [
  'helm.sh/chart',
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/instance',
];

function parseObjects(text: string): ChartObject[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as ChartObject | null)
    .filter((object): object is ChartObject => object !== null);
}

const keyOf = (object: ChartObject): string =>
  `${object.kind ?? ''}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

function byKey(objects: ChartObject[]): Map<string, ChartObject> {
  return new Map(
    [...objects]
      .sort((a, b) => keyOf(a).localeCompare(keyOf(b)))
      .map((object) => [keyOf(object), object]),
  );
}

/** An object as the manifests have it: the chart's labels taken off again. */
function withoutHelmLabels(object: ChartObject): ChartObject {
  const labels = Object.fromEntries(
    Object.entries(
      (object.metadata?.labels ?? {}) as Record<string, string>,
    ).filter(([key]) => !HELM_LABELS.includes(key)),
  );
  const metadata = { ...object.metadata };
  delete metadata.labels;
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  return { ...object, metadata };
}

function deploymentOf(objects: ChartObject[], name: string) {
  const deployment = objects.find(
    (object) => object.kind === 'Deployment' && object.metadata?.name === name,
  ) as
    | {
        spec: {
          replicas: number;
          template: {
            spec: {
              containers: {
                image: string;
                args: string[];
                resources: unknown;
              }[];
              initContainers?: { image: string }[];
            };
          };
        };
      }
    | undefined;
  if (deployment === undefined)
    throw new Error(`no Deployment ${name} in the render`);
  return deployment.spec;
}

describeLocal('the Helm chart (deploy/helm/tandem)', () => {
  const { kube, namespace } = useTestNamespace('helm-chart');
  let helm: string;
  let kubectl: string;
  /** `kubectl kustomize deploy/`, per certificate mode, without Namespace and CRDs. */
  let kustomized: { selfSigned: ChartObject[]; certManager: ChartObject[] };
  let crds: ChartObject[];

  const templateIn = async (
    releaseNamespace: string,
    ...args: string[]
  ): Promise<string> =>
    runCommand(helm, [
      'template',
      'tandem',
      CHART_DIR,
      '--namespace',
      releaseNamespace,
      ...args,
    ]);
  const template = async (...args: string[]): Promise<string> =>
    templateIn(NAMESPACE, ...args);
  const templateObjects = async (...args: string[]): Promise<ChartObject[]> =>
    parseObjects(await template(...args));

  beforeAll(async () => {
    helm = helmBinary();
    kubectl = controlPlaneValue('TANDEM_CP_KUBECTL');
    const render = async (mode: 'selfSigned' | 'certManager') =>
      (await renderDeploy(kubectl, mode)).map(({ object }) => object);
    const [selfSigned, certManager] = [
      await render('selfSigned'),
      await render('certManager'),
    ];
    const platform = (objects: ChartObject[]) =>
      objects.filter(
        (object) =>
          object.kind !== 'Namespace' &&
          object.kind !== 'CustomResourceDefinition',
      );
    kustomized = {
      selfSigned: platform(selfSigned),
      certManager: platform(certManager),
    };
    crds = selfSigned.filter(
      (object) => object.kind === 'CustomResourceDefinition',
    );
  });

  it('holds what `kubectl kustomize deploy/` renders now (else: regenerate it)', async () => {
    const drift = chartDrift(
      await committedChartFiles(),
      await freshChartFiles(kubectl),
    );
    if (drift.length > 0)
      throw new Error(
        `deploy/helm/tandem is out of step with deploy/ (${drift
          .map(({ path, problem }) => `${path}: ${problem}`)
          .join(
            ', ',
          )}): regenerate it with \`${GENERATE_CHART_COMMAND}\` and commit the result`,
      );
  });

  it.each([['selfSigned'], ['certManager']])(
    'passes `helm lint --strict` in the %s mode',
    async (mode) => {
      const stdout = await runCommand(helm, [
        'lint',
        '--strict',
        CHART_DIR,
        '--namespace',
        NAMESPACE,
        '--set',
        `certificates.mode=${mode}`,
      ]);
      expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    },
  );

  it.each([['selfSigned'], ['certManager']] as const)(
    'renders in the %s mode the objects of the kustomization, unchanged but for its labels',
    async (mode) => {
      const rendered = await templateObjects(
        '--set',
        `certificates.mode=${mode}`,
      );
      for (const object of rendered)
        expect(object.metadata?.labels).toMatchObject({
          'app.kubernetes.io/managed-by': 'Helm',
          'app.kubernetes.io/instance': 'tandem',
        });
      expect(byKey(rendered.map(withoutHelmLabels))).toEqual(
        byKey(kustomized[mode]),
      );
    },
  );

  it("ships the kustomization's CRDs in crds/, which Helm installs first and never deletes", async () => {
    const withCrds = await templateObjects('--include-crds');
    expect(
      withCrds.filter((object) => object.kind === 'CustomResourceDefinition'),
    ).toEqual(crds);
    expect(crds.map((crd) => crd.metadata?.name).sort()).toEqual([
      'verticalpodautoscalercheckpoints.autoscaling.k8s.io',
      'verticalpodautoscalers.autoscaling.k8s.io',
    ]);
  });

  it('installs into the release namespace: every tandem-system of deploy/ becomes it', async () => {
    const text = await templateIn('autoscaling');
    expect(text).not.toMatch(/tandem-system/);
    const expected = JSON.parse(
      JSON.stringify(kustomized.selfSigned).replaceAll(
        'tandem-system',
        'autoscaling',
      ),
    ) as ChartObject[];
    expect(byKey(parseObjects(text).map(withoutHelmLabels))).toEqual(
      byKey(expected),
    );
  });

  it("sets an app's replicas, resources, extra flags and image, and nothing else", async () => {
    const resources = { requests: { cpu: '300m', memory: '1Gi' } };
    const rendered = await templateObjects(
      '--set',
      'recommender.replicas=3',
      '--set-json',
      `recommender.resources=${JSON.stringify(resources)}`,
      '--set',
      'recommender.extraArgs={--v=4,--recommender-interval=30s}',
      '--set',
      'recommender.image.tag=9.9.9',
      '--set',
      'admissionWebhook.image.repository=registry.example:5000/tandem/webhook',
    );
    const recommender = deploymentOf(rendered, 'tandem-recommender');
    const manifest = deploymentOf(kustomized.selfSigned, 'tandem-recommender');
    const [container] = recommender.template.spec.containers;
    const [manifestContainer] = manifest.template.spec.containers;
    expect(recommender.replicas).toBe(3);
    expect(container?.resources).toEqual(resources);
    expect(container?.args).toEqual([
      ...(manifestContainer?.args ?? []),
      '--v=4',
      '--recommender-interval=30s',
    ]);
    expect(container?.image).toBe(
      manifestContainer?.image.replace(/:[^:/]+$/, ':9.9.9'),
    );
    // The repository alone: the manifest's tag stays, on init containers too.
    const webhook = deploymentOf(rendered, 'tandem-admission-webhook');
    const tag = /:[^:/]+$/.exec(
      deploymentOf(kustomized.selfSigned, 'tandem-admission-webhook').template
        .spec.containers[0]?.image ?? '',
    )?.[0];
    for (const { image } of [
      ...webhook.template.spec.containers,
      ...(webhook.template.spec.initContainers ?? []),
    ])
      expect(image).toBe(`registry.example:5000/tandem/webhook${tag}`);
    // Every other object is the manifest's.
    const untouched = (objects: ChartObject[]) =>
      objects
        .filter(
          (object) =>
            object.kind !== 'Deployment' ||
            !['tandem-recommender', 'tandem-admission-webhook'].includes(
              object.metadata?.name ?? '',
            ),
        )
        .map(withoutHelmLabels);
    expect(byKey(untouched(rendered))).toEqual(
      byKey(untouched(kustomized.selfSigned)),
    );
  });

  it.each(CHART_APPS.map((app) => [app.key, app.folder]))(
    '%s.enabled=false leaves out the objects of deploy/%s/ (and those named after the app), nothing else',
    async (key, folder) => {
      const objects = (await renderDeploy(kubectl, 'selfSigned')).filter(
        ({ object }) =>
          object.kind !== 'Namespace' &&
          object.kind !== 'CustomResourceDefinition',
      );
      const [ofApp, others] = [
        objects.filter((item) => appOf(item) === key),
        objects.filter((item) => appOf(item) !== key),
      ];
      expect(
        objects.filter(({ origin }) => origin.startsWith(`${folder}/`)),
      ).toEqual(ofApp.filter(({ origin }) => origin.startsWith(`${folder}/`)));
      expect(ofApp.map(({ object }) => object.kind)).toContain('Deployment');
      const rendered = await templateObjects('--set', `${key}.enabled=false`);
      expect(byKey(rendered.map(withoutHelmLabels))).toEqual(
        byKey(others.map(({ object }) => object)),
      );
    },
  );

  it('refuses values outside its schema, saying which', async () => {
    // Matched on Helm's words, not the value: the error also quotes the command line.
    await expect(template('--set', 'certificates.mode=vault')).rejects.toThrow(
      "at '/certificates/mode': value must be one of 'selfSigned', 'certManager'",
    );
    await expect(
      template('--set', 'recommender.extraArgs={v=4}'),
    ).rejects.toThrow("'v=4' does not match pattern '^--'");
    await expect(template('--set', 'recommender.replica=3')).rejects.toThrow(
      "at '/recommender': additional properties 'replica' not allowed",
    );
  });

  describe('on the cluster (kubectl apply --dry-run=server)', () => {
    // The namespace for real and the CRDs, as platform-manifests.spec.ts does: a dry run
    // persists nothing, so the namespaced objects would find no namespace.
    beforeAll(async () => {
      await runCommand(kubectl, [
        `--kubeconfig=${clusterKubeconfig()}`,
        'apply',
        '-f',
        join(DEPLOY_DIR, 'namespace.yaml'),
      ]);
      await installTandemCrds(kube);
    });

    const dryRun = async (manifests: string): Promise<string[]> =>
      (
        await runCommand(
          kubectl,
          [
            `--kubeconfig=${clusterKubeconfig()}`,
            'apply',
            '--dry-run=server',
            '-f',
            '-',
          ],
          manifests,
        )
      )
        .trim()
        .split('\n');

    it('accepts every object of the default render', async () => {
      const manifests = await template();
      const lines = await dryRun(manifests);
      expect(lines).toHaveLength(parseObjects(manifests).length);
      for (const line of lines)
        expect(line).toMatch(
          / (created|configured|unchanged) \(server dry run\)$/,
        );
    });

    it('accepts a render into another namespace', async () => {
      const manifests = await templateIn(namespace());
      const lines = await dryRun(manifests);
      expect(lines).toContain(
        `deployment.apps/tandem-recommender created (server dry run)`,
      );
      expect(lines).toHaveLength(parseObjects(manifests).length);
    });
  });
});
