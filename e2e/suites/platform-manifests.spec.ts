import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  loadAllYaml,
  type KubernetesObject,
  type V1ClusterRole,
  type V1ClusterRoleBinding,
  type V1Container,
  type V1Deployment,
  type V1NetworkPolicy,
  type V1PriorityClass,
  type V1ValidatingAdmissionPolicy,
  type V1ValidatingAdmissionPolicyBinding,
} from '@kubernetes/client-node';
import { compileLabelSelector, type LabelSelector } from '@tandem/vpa-api';
import { REPO_ROOT } from '../harness/app-process.ts';
import { kubeClients } from '../harness/kube.ts';
import {
  findObject,
  kubectl,
  objectsOfKind,
  renderKustomization,
} from '../harness/kustomize.ts';
import { DEPLOY_DIR, installTandemCrds } from '../harness/manifests.ts';
import { renderOverlay } from '../harness/overlay.ts';
import {
  ingressAccess,
  type IngressAccess,
} from '../harness/network-policy-access.ts';

const kube = kubeClients();

const WEBHOOK = 'tandem-admission-webhook';
const ADAPTER = 'tandem-metrics-adapter';
const RECOMMENDER = 'tandem-recommender';
const DASHBOARD = 'tandem-dashboard';
const UPDATER = 'tandem-updater';

/** Each `<kind>.<group>/<name>` must be reported as accepted by the server dry run. */
function expectAccepted(stdout: string, objects: string[]): void {
  for (const object of objects)
    expect(stdout).toMatch(
      new RegExp(
        `^${object.replaceAll('.', '\\.')} (created|configured|unchanged) \\(server dry run\\)$`,
        'm',
      ),
    );
}

/**
 * The manifest files below `directory` (relative to deploy/), leaving out kustomizations
 * and the folders that are installs of their own: kustomizations and components (the
 * cert-manager path, monitoring) and Helm charts.
 */
function manifestFiles(directory = DEPLOY_DIR): string[] {
  const entries = readdirSync(directory, { withFileTypes: true });
  if (
    directory !== DEPLOY_DIR &&
    entries.some(
      (entry) =>
        entry.name === 'kustomization.yaml' || entry.name === 'Chart.yaml',
    )
  )
    return [];
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return manifestFiles(path);
    return entry.name.endsWith('.yaml') && entry.name !== 'kustomization.yaml'
      ? [relative(DEPLOY_DIR, path)]
      : [];
  });
}

const kustomization = loadAllYaml(
  readFileSync(join(DEPLOY_DIR, 'kustomization.yaml'), 'utf8'),
)[0] as { resources: string[] };

describe('the manifests in deploy/ (kubectl apply, server-side dry run)', () => {
  // The namespace for real, from its manifest, as the first thing an install applies; the
  // CRDs too (the suites share them). A dry run persists nothing, so without them the
  // namespaced objects would find no namespace.
  beforeAll(async () => {
    expect(
      await kubectl('apply', '-f', join(DEPLOY_DIR, 'namespace.yaml')),
    ).toMatch(/^namespace\/tandem-system (created|configured|unchanged)$/m);
    await installTandemCrds(kube);
  });

  it('has one kustomization of every manifest, deploy/namespace.yaml first', () => {
    expect(kustomization.resources[0]).toBe('namespace.yaml');
    expect([...kustomization.resources].sort()).toEqual(manifestFiles().sort());
    // Only namespace.yaml creates the namespace.
    const namespaces = manifestFiles().filter((file) =>
      (
        loadAllYaml(
          readFileSync(join(DEPLOY_DIR, file), 'utf8'),
        ) as KubernetesObject[]
      ).some((object) => object?.kind === 'Namespace'),
    );
    expect(namespaces).toEqual(['namespace.yaml']);
  });

  it('the whole platform (kubectl apply -k deploy/) is accepted, the namespace first', async () => {
    const stdout = await kubectl('apply', '-k', DEPLOY_DIR, '--dry-run=server');
    expect(stdout.split('\n')[0]).toMatch(/^namespace\/tandem-system /);
    expectAccepted(stdout, [
      'namespace/tandem-system',
      'customresourcedefinition.apiextensions.k8s.io/verticalpodautoscalers.autoscaling.k8s.io',
      'customresourcedefinition.apiextensions.k8s.io/verticalpodautoscalercheckpoints.autoscaling.k8s.io',
      'priorityclass.scheduling.k8s.io/tandem-critical',
      'networkpolicy.networking.k8s.io/tandem-ops-from-monitoring',
      'networkpolicy.networking.k8s.io/tandem-admission-webhook-serving',
      'networkpolicy.networking.k8s.io/tandem-metrics-adapter-serving',
      'deployment.apps/tandem-recommender',
      'deployment.apps/tandem-admission-webhook',
      'clusterrole.rbac.authorization.k8s.io/tandem-admission-webhook-registration',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-admission-webhook-registration',
      'deployment.apps/tandem-updater',
      'clusterrole.rbac.authorization.k8s.io/tandem-updater',
      'role.rbac.authorization.k8s.io/tandem-updater',
      'service/tandem-updater-metrics',
      'poddisruptionbudget.policy/tandem-updater',
      'validatingadmissionpolicy.admissionregistration.k8s.io/tandem-updater-pod-writes',
      'validatingadmissionpolicybinding.admissionregistration.k8s.io/tandem-updater-pod-writes',
      'deployment.apps/tandem-metrics-adapter',
      'apiservice.apiregistration.k8s.io/v1beta2.custom.metrics.k8s.io',
      'apiservice.apiregistration.k8s.io/v1beta1.custom.metrics.k8s.io',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-hpa-controller-custom-metrics',
      'networkpolicy.networking.k8s.io/tandem-dashboard-pages',
      'serviceaccount/tandem-dashboard',
      'clusterrole.rbac.authorization.k8s.io/tandem-dashboard',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-dashboard',
      'deployment.apps/tandem-dashboard',
      'service/tandem-dashboard',
    ]);
  });

  it("gives the dashboard's ServiceAccount reads of what it shows and nothing else", async () => {
    const rbac = join(DEPLOY_DIR, 'dashboard', 'rbac.yaml');
    await kubectl('apply', '-f', rbac);
    try {
      // `kubectl auth can-i` prints yes (exit 0) or no (exit 1).
      const can = async (verb: string, resource: string) => {
        const [type, subresource] = resource.split('/');
        return (
          await kubectl(
            'auth',
            'can-i',
            verb,
            type as string,
            ...(subresource === undefined
              ? []
              : [`--subresource=${subresource}`]),
            '--all-namespaces',
            `--as=system:serviceaccount:tandem-system:${DASHBOARD}`,
          ).catch((error: unknown) => String(error))
        ).startsWith('yes');
      };
      const allowed = [
        ['list', 'verticalpodautoscalers.autoscaling.k8s.io'],
        ['watch', 'horizontalpodautoscalers.autoscaling'],
        ['list', 'pods'],
        ['watch', 'events'],
        ['list', 'pods.metrics.k8s.io'],
        ['get', 'deployments.apps/scale'],
      ];
      const refused = [
        ['get', 'secrets'],
        ['list', 'secrets'],
        ['list', 'configmaps'],
        ['create', 'pods'],
        ['delete', 'pods'],
        ['patch', 'verticalpodautoscalers.autoscaling.k8s.io'],
        ['update', 'horizontalpodautoscalers.autoscaling'],
        ['create', 'events'],
        ['update', 'deployments.apps/scale'],
        ['create', 'pods/eviction'],
      ];
      for (const [verb, resource] of allowed)
        expect([
          verb,
          resource,
          await can(verb as string, resource as string),
        ]).toEqual([verb, resource, true]);
      for (const [verb, resource] of refused)
        expect([
          verb,
          resource,
          await can(verb as string, resource as string),
        ]).toEqual([verb, resource, false]);
    } finally {
      await kubectl('delete', '-f', rbac, '--ignore-not-found');
    }
  });

  it('the recommender on its own (kubectl apply -f deploy/recommender/) is accepted', async () => {
    const stdout = await kubectl(
      'apply',
      '-f',
      join(DEPLOY_DIR, 'recommender'),
      '--dry-run=server',
    );
    expectAccepted(stdout, [
      'serviceaccount/tandem-recommender',
      'clusterrole.rbac.authorization.k8s.io/tandem-recommender',
      'clusterrolebinding.rbac.authorization.k8s.io/tandem-recommender',
      'role.rbac.authorization.k8s.io/tandem-recommender-leader-election',
      'rolebinding.rbac.authorization.k8s.io/tandem-recommender-leader-election',
      'deployment.apps/tandem-recommender',
      'service/tandem-recommender-metrics',
    ]);
    // Nothing but the recommender's own objects: no namespace or CRD of its own.
    expect(stdout.trim().split('\n')).toHaveLength(7);
  });
});

/** The version in apps/<app>/package.json, which the app's image is tagged with. */
function packageVersion(app: string): string {
  const manifest = JSON.parse(
    readFileSync(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8'),
  ) as { version?: unknown };
  if (typeof manifest.version !== 'string')
    throw new Error(`apps/${app}/package.json has no version`);
  return manifest.version;
}

/** The port of a `--<flag>=[host]:<port>` or `--<flag>=<port>` argument. */
function flagPort(container: V1Container, flag: string): number {
  const value = container.args
    ?.find((arg) => arg.startsWith(`--${flag}=`))
    ?.slice(flag.length + 3);
  const port = Number(value?.slice(value.lastIndexOf(':') + 1));
  if (!Number.isInteger(port) || port <= 0)
    throw new Error(`container ${container.name} has no port in --${flag}`);
  return port;
}

/** The apps whose API server callers come in on a port of their own, and its flag. */
const SERVING_PORT_FLAG: Record<string, string> = {
  [WEBHOOK]: 'port',
  [ADAPTER]: 'secure-port',
};
const MONITORING_NAMESPACES = {
  namespaceSelector: { matchLabels: { 'tandem.dev/monitoring': 'true' } },
};
const FROM_MONITORING: IngressAccess = {
  kind: 'isolated',
  anySource: false,
  peers: [MONITORING_NAMESPACES],
};
const FROM_ANY_SOURCE: IngressAccess = {
  kind: 'isolated',
  anySource: true,
  peers: [],
};
const FROM_NOWHERE: IngressAccess = {
  kind: 'isolated',
  anySource: false,
  peers: [],
};
/** A port no Tandem app listens on. */
const UNUSED_PORT = 9999;

describe('the rendered platform (kubectl kustomize deploy/)', () => {
  let rendered: KubernetesObject[];
  beforeAll(async () => {
    rendered = await renderKustomization(DEPLOY_DIR);
  });
  const deployments = () => objectsOfKind<V1Deployment>(rendered, 'Deployment');
  const podSpecOf = (name: string) =>
    findObject<V1Deployment>(rendered, 'Deployment', name).spec?.template.spec;
  const mainContainerOf = (deployment: V1Deployment): V1Container => {
    const container = deployment.spec?.template.spec?.containers[0];
    if (container === undefined)
      throw new Error(`${deployment.metadata?.name} has no container`);
    return container;
  };

  it("tags every app's image with its version in apps/<app>/package.json", () => {
    const images = deployments().flatMap((deployment) =>
      [
        ...(deployment.spec?.template.spec?.initContainers ?? []),
        ...(deployment.spec?.template.spec?.containers ?? []),
      ].map((container) => container.image ?? ''),
    );
    const appOf = (image: string) =>
      /^tandem\/([a-z-]+):/.exec(image)?.[1] ?? `not tandem/<app>: ${image}`;
    expect(new Set(images.map(appOf))).toEqual(
      new Set([
        'recommender',
        'admission-webhook',
        'updater',
        'metrics-adapter',
        'dashboard',
      ]),
    );
    expect(images).toEqual(
      images.map(
        (image) => `tandem/${appOf(image)}:${packageVersion(appOf(image))}`,
      ),
    );
  });

  it('runs the webhook and the adapter at the tandem-critical priority, below the system classes', () => {
    expect(
      Object.fromEntries(
        [WEBHOOK, ADAPTER, RECOMMENDER, UPDATER].map((name) => [
          name,
          podSpecOf(name)?.priorityClassName,
        ]),
      ),
    ).toEqual({
      [WEBHOOK]: 'tandem-critical',
      [ADAPTER]: 'tandem-critical',
      [RECOMMENDER]: undefined,
      [UPDATER]: undefined,
    });
    const priorityClass = findObject<V1PriorityClass>(
      rendered,
      'PriorityClass',
      'tandem-critical',
    );
    // 1000000000 is the highest value a PriorityClass other than system-* may have.
    expect(priorityClass.value).toBeGreaterThan(0);
    expect(priorityClass.value).toBeLessThanOrEqual(1_000_000_000);
    expect(priorityClass.globalDefault).toBe(false);
  });

  it('spreads the replicas of every Deployment with two or more across nodes', () => {
    const replicated = deployments().filter(
      (deployment) => (deployment.spec?.replicas ?? 1) >= 2,
    );
    expect(replicated.map((deployment) => deployment.metadata?.name)).toEqual(
      expect.arrayContaining([WEBHOOK, ADAPTER]),
    );
    const spreads = Object.fromEntries(
      replicated.map((deployment) => {
        const template = deployment.spec?.template;
        return [
          deployment.metadata?.name,
          (template?.spec?.topologySpreadConstraints ?? [])
            .filter(
              (constraint) =>
                constraint.topologyKey === 'kubernetes.io/hostname',
            )
            .map((constraint) => ({
              maxSkew: constraint.maxSkew,
              whenUnsatisfiable: constraint.whenUnsatisfiable,
              selectsItsOwnPods: compileLabelSelector(
                constraint.labelSelector as LabelSelector,
              ).matches(template?.metadata?.labels),
            })),
        ];
      }),
    );
    expect(spreads).toEqual(
      Object.fromEntries(
        replicated.map((deployment) => [
          deployment.metadata?.name,
          [
            {
              maxSkew: 1,
              whenUnsatisfiable: 'ScheduleAnyway',
              selectsItsOwnPods: true,
            },
          ],
        ]),
      ),
    );
  });

  it('admits serving ports from any source, ops ports only from monitoring namespaces, nothing else', () => {
    const policies = objectsOfKind<V1NetworkPolicy>(rendered, 'NetworkPolicy');
    // Ingress only: the apps reach the API server, Prometheus and OTLP wherever they are.
    expect(policies.map((policy) => policy.spec?.policyTypes)).toEqual(
      policies.map(() => ['Ingress']),
    );
    const access = Object.fromEntries(
      deployments().map((deployment) => {
        const name = deployment.metadata?.name ?? '';
        const container = mainContainerOf(deployment);
        const target = {
          labels: deployment.spec?.template.metadata?.labels ?? {},
          ports: container.ports ?? [],
        };
        const servingFlag = SERVING_PORT_FLAG[name];
        return [
          name,
          {
            ops: ingressAccess(
              policies,
              target,
              flagPort(container, 'address'),
            ),
            ...(servingFlag && {
              serving: ingressAccess(
                policies,
                target,
                flagPort(container, servingFlag),
              ),
            }),
            unused: ingressAccess(policies, target, UNUSED_PORT),
          },
        ];
      }),
    );
    expect(access).toEqual({
      [WEBHOOK]: {
        ops: FROM_MONITORING,
        serving: FROM_ANY_SOURCE,
        unused: FROM_NOWHERE,
      },
      [ADAPTER]: {
        ops: FROM_MONITORING,
        serving: FROM_ANY_SOURCE,
        unused: FROM_NOWHERE,
      },
      [RECOMMENDER]: { ops: FROM_MONITORING, unused: FROM_NOWHERE },
      [UPDATER]: { ops: FROM_MONITORING, unused: FROM_NOWHERE },
      // The dashboard's one port: pages and ops, for monitoring and dashboard namespaces.
      [DASHBOARD]: {
        ops: {
          kind: 'isolated',
          anySource: false,
          peers: [
            MONITORING_NAMESPACES,
            {
              namespaceSelector: {
                matchLabels: { 'tandem.dev/dashboard': 'true' },
              },
            },
          ],
        },
        unused: FROM_NOWHERE,
      },
    });
  });

  it("binds the updater's pod-writes policy to the updater's ServiceAccount, denying", () => {
    const updater = findObject<V1Deployment>(rendered, 'Deployment', UPDATER);
    const account = updater.spec?.template.spec?.serviceAccountName ?? '';
    findObject(rendered, 'ServiceAccount', account);
    const policy = findObject<V1ValidatingAdmissionPolicy>(
      rendered,
      'ValidatingAdmissionPolicy',
      'tandem-updater-pod-writes',
    );
    expect(policy.spec?.failurePolicy).toBe('Fail');
    // The main resource only: `pods/resize` and `pods/eviction` stay out of it.
    expect(policy.spec?.matchConstraints?.resourceRules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        operations: ['UPDATE'],
        resources: ['pods'],
      },
    ]);
    expect(
      policy.spec?.matchConditions?.map((condition) => condition.expression),
    ).toEqual([
      `request.userInfo.username == 'system:serviceaccount:${updater.metadata?.namespace}:${account}'`,
    ]);
    const bindings = objectsOfKind<V1ValidatingAdmissionPolicyBinding>(
      rendered,
      'ValidatingAdmissionPolicyBinding',
    ).filter((binding) => binding.spec?.policyName === policy.metadata?.name);
    expect(bindings.map((binding) => binding.spec?.validationActions)).toEqual([
      ['Deny'],
    ]);
  });

  it("keeps the webhook's self-registration in a role of its own, bound to the webhook", () => {
    const registers = (role: string) =>
      (findObject<V1ClusterRole>(rendered, 'ClusterRole', role).rules ?? [])
        .filter((rule) =>
          rule.resources?.includes('mutatingwebhookconfigurations'),
        )
        .map((rule) => ({ names: rule.resourceNames, verbs: rule.verbs }));
    expect(registers(WEBHOOK)).toEqual([]);
    expect(registers(`${WEBHOOK}-registration`)).toEqual([
      { verbs: ['create'] },
      {
        names: ['vpa-webhook-config'],
        verbs: ['get', 'delete', 'patch', 'update'],
      },
    ]);
    const binding = findObject<V1ClusterRoleBinding>(
      rendered,
      'ClusterRoleBinding',
      `${WEBHOOK}-registration`,
    );
    expect(binding.roleRef.name).toBe(`${WEBHOOK}-registration`);
    expect(binding.subjects).toEqual([
      {
        kind: 'ServiceAccount',
        name: podSpecOf(WEBHOOK)?.serviceAccountName,
        namespace: 'tandem-system',
      },
    ]);
  });

  it('installs no Prometheus Operator object by default', () => {
    expect(
      rendered.filter((object) =>
        object.apiVersion?.startsWith('monitoring.coreos.com/'),
      ),
    ).toEqual([]);
  });
});

/** The serving-certificate gauge of packages/serving (src/reload-metrics.ts). */
const EXPIRY_METRIC = 'tandem_serving_certificate_expiry_timestamp_seconds';

interface PrometheusRule extends KubernetesObject {
  spec: {
    groups: {
      rules: {
        alert?: string;
        expr: string;
        labels?: Record<string, string>;
      }[];
    }[];
  };
}

describe('the monitoring component (deploy/monitoring, rendered in an overlay)', () => {
  it('alerts a week and a day before a serving certificate expires, and when the webhook or the adapter is gone', async () => {
    const overlay = await renderOverlay({
      resources: [DEPLOY_DIR],
      components: [join(DEPLOY_DIR, 'monitoring')],
    });
    overlay.remove();
    const { objects } = overlay;
    const rule = findObject<PrometheusRule>(
      objects,
      'PrometheusRule',
      'tandem',
    );
    expect(
      Object.fromEntries(
        rule.spec.groups
          .flatMap((group) => group.rules)
          .map((alert) => [
            alert.alert,
            { expr: alert.expr, severity: alert.labels?.['severity'] },
          ]),
      ),
    ).toEqual({
      TandemServingCertificateExpiresSoon: {
        expr: `${EXPIRY_METRIC} - time() < 7 * 24 * 3600`,
        severity: 'warning',
      },
      TandemServingCertificateExpiresWithinADay: {
        expr: `${EXPIRY_METRIC} - time() < 24 * 3600`,
        severity: 'critical',
      },
      TandemAdmissionWebhookDown: {
        expr: `absent(up{job="${WEBHOOK}"} == 1)`,
        severity: 'warning',
      },
      TandemMetricsAdapterDown: {
        expr: `absent(up{job="${ADAPTER}"} == 1)`,
        severity: 'critical',
      },
    });
    // `job` is the app's name because the ServiceMonitor takes it from that label.
    expect(
      findObject<KubernetesObject & { spec: { jobLabel?: string } }>(
        objects,
        'ServiceMonitor',
        'tandem',
      ).spec.jobLabel,
    ).toBe('app.kubernetes.io/name');
  });
});
