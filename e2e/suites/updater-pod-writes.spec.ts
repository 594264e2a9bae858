import { join } from 'node:path';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { describeError } from '@tandem/kube';
import { inPlaceUpdatedAnnotationPatch } from '@tandem/update-decisions';
import { PodAnnotation } from '@tandem/vpa-api';
import { kubectl } from '../harness/kustomize.ts';
import { DEPLOY_DIR } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';
import { ON_FAKE_NODES } from '../harness/workloads.ts';

// deploy/updater/pod-writes-policy.yaml on a real API server: the updater's ServiceAccount
// (impersonated, with the RBAC of deploy/updater/rbac.yaml) may set `vpaInPlaceUpdated`,
// remove a `vpaCpuStartupBoost/<container>` annotation (the unboost) and resize through the
// subresource, and nothing else on a pod; other users are not bound.

const { kube, namespace } = useTestNamespace('pod-writes');
const UPDATER = 'system:serviceaccount:tandem-system:tandem-updater';
const POLICY = 'tandem-updater-pod-writes';
const IMAGE = 'registry.k8s.io/pause:3.10';
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const BOOST_KEY = 'vpaCpuStartupBoost/app';

interface Operation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** The admin's kubeconfig, acting as `username` (the Impersonate-User header). */
function impersonating(config: KubeConfig, username: string): KubeConfig {
  const cluster = config.getCurrentCluster();
  const user = config.getCurrentUser();
  if (cluster === null || user === null)
    throw new Error('the kubeconfig names no cluster or user');
  const impersonated = new KubeConfig();
  impersonated.loadFromClusterAndUser(cluster, {
    ...user,
    name: 'impersonated',
    impersonateUser: username,
  });
  return impersonated;
}

const asUpdater = impersonating(kube.config, UPDATER).makeApiClient(CoreV1Api);

/**
 * Sends `patch` to a pod (or its `resize` subresource) as the updater: `allowed`, or the
 * API server's refusal in one line.
 */
async function patchAsUpdater(
  name: string,
  patch: Operation[],
  { resize = false, dryRun = false } = {},
): Promise<string> {
  const request = {
    name,
    namespace: namespace(),
    body: patch,
    ...(dryRun && { dryRun: 'All' }),
  };
  try {
    await (resize
      ? asUpdater.patchNamespacedPodResize(request, jsonPatch)
      : asUpdater.patchNamespacedPod(request, jsonPatch));
    return 'allowed';
  } catch (error) {
    return describeError(error);
  }
}

const readPod = (name: string) =>
  kube.core.readNamespacedPod({ name, namespace: namespace() });

async function createPod(
  name: string,
  annotations?: Record<string, string>,
): Promise<void> {
  await kube.core.createNamespacedPod({
    namespace: namespace(),
    body: {
      metadata: { name, labels: { app: name }, annotations },
      spec: {
        ...ON_FAKE_NODES,
        containers: [
          {
            name: 'app',
            image: IMAGE,
            resources: {
              requests: { cpu: '100m', memory: '64Mi' },
              limits: { cpu: '200m', memory: '128Mi' },
            },
          },
        ],
      },
    },
  });
}

/** `... ValidatingAdmissionPolicy 'tandem-updater-pod-writes' ... denied request: <message>` */
const deniedBecause = (message: string) =>
  expect.stringMatching(
    new RegExp(
      `^HTTP 403 Forbidden: .*ValidatingAdmissionPolicy '${POLICY}' .*denied request: ${message}`,
    ),
  );

beforeAll(async () => {
  // As a user installs them: the namespace, the updater's RBAC, the policy and its binding.
  await kubectl(
    'apply',
    '-f',
    join(DEPLOY_DIR, 'namespace.yaml'),
    '-f',
    join(DEPLOY_DIR, 'updater', 'rbac.yaml'),
    '-f',
    join(DEPLOY_DIR, 'updater', 'pod-writes-policy.yaml'),
  );
  await createPod('bare');
  await createPod('annotated', { 'example.com/team': 'a' });
  await createPod('boosted', { [BOOST_KEY]: '{"requests":{},"limits":{}}' });
  // A new policy takes effect once the API server's admission plugin has compiled it: wait
  // until it denies a (dry-run) label change the updater's RBAC alone would allow.
  await waitFor(
    `ValidatingAdmissionPolicy ${POLICY} to deny the updater a label change`,
    async () =>
      (
        await patchAsUpdater(
          'annotated',
          [{ op: 'add', path: '/metadata/labels/probe', value: 'x' }],
          { dryRun: true },
        )
      ).includes(POLICY) || undefined,
    { timeoutMs: 60_000 },
  );
});

describe('the updater under deploy/updater/pod-writes-policy.yaml', () => {
  it.each([
    [
      'the image',
      [{ op: 'replace', path: '/spec/containers/0/image', value: 'evil:1' }],
      'tandem-updater may not change the spec of pod',
    ],
    [
      'a label',
      [{ op: 'add', path: '/metadata/labels/extra', value: 'x' }],
      'tandem-updater may not change the labels, owners or finalizers of pod',
    ],
    [
      'a finalizer',
      [
        {
          op: 'add',
          path: '/metadata/finalizers',
          value: ['example.com/keep'],
        },
      ],
      'tandem-updater may not change the labels, owners or finalizers of pod',
    ],
    [
      'another annotation',
      [{ op: 'add', path: '/metadata/annotations/example.com~1x', value: 'y' }],
      'tandem-updater may change only the annotations vpaInPlaceUpdated of pod',
    ],
    [
      "another's annotation, removed",
      [{ op: 'remove', path: '/metadata/annotations/example.com~1team' }],
      'tandem-updater may change only the annotations vpaInPlaceUpdated of pod',
    ],
    [
      'a startup boost annotation, added',
      [
        {
          op: 'add',
          path: '/metadata/annotations/vpaCpuStartupBoost~1app',
          value: '{}',
        },
      ],
      'tandem-updater may change only the annotations vpaInPlaceUpdated of pod',
    ],
  ] satisfies [string, Operation[], string][])(
    'denies a patch of %s',
    async (_, patch, message) => {
      expect(await patchAsUpdater('annotated', patch)).toEqual(
        deniedBecause(message),
      );
    },
  );

  it('leaves the denied pod as it was', async () => {
    const pod = await readPod('annotated');
    expect(pod.spec?.containers[0]?.image).toBe(IMAGE);
    expect(pod.metadata?.labels).toEqual({ app: 'annotated' });
    expect(pod.metadata?.annotations).toEqual({ 'example.com/team': 'a' });
    expect(pod.metadata?.finalizers).toBeUndefined();
  });

  it.each([
    ['without annotations', 'bare', {}],
    ['with annotations', 'annotated', { 'example.com/team': 'a' }],
  ])(
    "allows the updater's own vpaInPlaceUpdated patch on a pod %s",
    async (_, name, before) => {
      const pod = await readPod(name);
      const patch = inPlaceUpdatedAnnotationPatch({
        metadata: { annotations: pod.metadata?.annotations },
        spec: { containers: [] },
      });
      expect(await patchAsUpdater(name, patch)).toBe('allowed');
      expect((await readPod(name)).metadata?.annotations).toEqual({
        ...before,
        [PodAnnotation.vpaInPlaceUpdated]: 'true',
      });
    },
  );

  it('allows the unboost to remove a startup boost annotation, and not to change it', async () => {
    expect(
      await patchAsUpdater('boosted', [
        {
          op: 'replace',
          path: '/metadata/annotations/vpaCpuStartupBoost~1app',
          value: '{}',
        },
      ]),
    ).toEqual(
      deniedBecause(
        'tandem-updater may change only the annotations vpaInPlaceUpdated of pod',
      ),
    );
    expect(
      await patchAsUpdater('boosted', [
        { op: 'remove', path: '/metadata/annotations/vpaCpuStartupBoost~1app' },
        {
          op: 'add',
          path: '/metadata/annotations/vpaInPlaceUpdated',
          value: 'true',
        },
      ]),
    ).toBe('allowed');
    expect((await readPod('boosted')).metadata?.annotations).toEqual({
      [PodAnnotation.vpaInPlaceUpdated]: 'true',
    });
  });

  it('allows an in-place resize through the resize subresource', async () => {
    expect(
      await patchAsUpdater(
        'bare',
        [
          {
            op: 'replace',
            path: '/spec/containers/0/resources/requests/cpu',
            value: '150m',
          },
        ],
        { resize: true },
      ),
    ).toBe('allowed');
    expect(
      (await readPod('bare')).spec?.containers[0]?.resources?.requests?.['cpu'],
    ).toBe('150m');
  });

  it('binds the updater only: the admin still changes the image', async () => {
    await kube.core.patchNamespacedPod(
      {
        name: 'bare',
        namespace: namespace(),
        body: [
          { op: 'replace', path: '/spec/containers/0/image', value: 'other:1' },
        ],
      },
      jsonPatch,
    );
    expect((await readPod('bare')).spec?.containers[0]?.image).toBe('other:1');
  });
});
