import { request } from 'node:https';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { httpStatusOf } from '../harness/kube.ts';
import {
  DEPLOY_DIR,
  applyCustomResourceDefinition,
  installTandemCrds,
  loadCustomResourceDefinitions,
} from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';

const GROUP = 'autoscaling.k8s.io';
const VERSION = 'v1';
const VPAS = 'verticalpodautoscalers';
const CHECKPOINTS = 'verticalpodautoscalercheckpoints';
const VPA_CRD_FILE = join(DEPLOY_DIR, 'crds', 'verticalpodautoscalers.yaml');

type Json = Record<string, unknown>;

const { kube, namespace: currentNamespace } = useTestNamespace('vpa-crds');
const extensions = kube.config.makeApiClient(ApiextensionsV1Api);
let namespace: string;
beforeAll(async () => {
  namespace = currentNamespace();
  await installTandemCrds(kube);
});

/**
 * A GET the typed clients do not offer (discovery, server-side tables). The body is parsed
 * when it is JSON; a 404 for a path nothing serves is plain text.
 */
async function getJson(
  path: string,
  accept = 'application/json',
): Promise<{ status: number; body: Json }> {
  const server = kube.config.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig names no cluster');
  const options: { headers: Record<string, string> } = { headers: { accept } };
  await kube.config.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    request(new URL(path, server), options, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const json = (response.headers['content-type'] ?? '').startsWith(
          'application/json',
        );
        resolve({
          status: response.statusCode ?? 0,
          body: json ? (JSON.parse(text) as Json) : { text },
        });
      });
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The Status an API call failed with (client-node keeps the response body). */
function failureStatus(error: unknown): {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { field?: string; reason?: string }[] };
} {
  const body = (error as { body?: unknown }).body;
  const status: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (typeof status !== 'object' || status === null)
    throw new Error(`not an API error: ${String(error)}`, { cause: error });
  return status;
}

function createVpa(body: Json): Promise<Json> {
  return kube.customObjects.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: VPAS,
    body,
  }) as Promise<Json>;
}

function readVpa(name: string): Promise<Json> {
  return kube.customObjects.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: VPAS,
    name,
  }) as Promise<Json>;
}

function vpaObject(name: string, spec: Json): Json {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'VerticalPodAutoscaler',
    metadata: { name },
    spec,
  };
}

/** A VPA as users write it for upstream: every quantity kept exactly as written. */
const upstreamStyleSpec = {
  targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  updatePolicy: {
    updateMode: 'Recreate',
    minReplicas: 2,
    evictionRequirements: [
      {
        resources: ['cpu', 'memory'],
        changeRequirement: 'TargetHigherThanRequests',
      },
    ],
  },
  resourcePolicy: {
    containerPolicies: [
      {
        containerName: 'app',
        mode: 'Auto',
        // A core object would canonicalize these (0.1 → 100m, 1.5Gi → 1536Mi); a custom
        // resource keeps them, and a bare number stays a number (int-or-string).
        minAllowed: { cpu: '0.1', memory: '50Mi' },
        maxAllowed: { cpu: 2, memory: '1.5Gi' },
        controlledResources: ['cpu', 'memory'],
        controlledValues: 'RequestsAndLimits',
      },
      { containerName: '*', mode: 'Off' },
    ],
  },
};

/** What upstream's recommender writes (§3.3), quantities in its own formatting. */
const recommendedStatus = {
  recommendation: {
    containerRecommendations: [
      {
        containerName: 'app',
        target: { cpu: '587m', memory: '262144k' },
        lowerBound: { cpu: '100m', memory: '262144k' },
        upperBound: { cpu: '2', memory: '1073741824' },
        uncappedTarget: { cpu: '587m', memory: '262144k' },
      },
    ],
  },
  conditions: [
    {
      type: 'RecommendationProvided',
      status: 'True',
      lastTransitionTime: '2024-01-02T03:04:05Z',
    },
  ],
  observedGeneration: 1,
};

describe('the VerticalPodAutoscaler and checkpoint CRDs (deploy/crds)', () => {
  it('serves autoscaling.k8s.io/v1 with the upstream names and a status subresource only for VPAs; v1beta2 is not served', async () => {
    const discovery = await getJson(`/apis/${GROUP}/${VERSION}`);
    expect(discovery.status).toBe(200);
    const resources = discovery.body['resources'] as Json[];
    const byName = new Map(resources.map((r) => [r['name'], r]));
    expect(byName.get(VPAS)).toMatchObject({
      kind: 'VerticalPodAutoscaler',
      singularName: 'verticalpodautoscaler',
      namespaced: true,
      shortNames: ['vpa'],
    });
    expect(byName.get(CHECKPOINTS)).toMatchObject({
      kind: 'VerticalPodAutoscalerCheckpoint',
      namespaced: true,
      shortNames: ['vpacheckpoint'],
    });
    expect([...byName.keys()].sort()).toEqual([
      CHECKPOINTS,
      VPAS,
      `${VPAS}/status`,
    ]);

    expect((await getJson(`/apis/${GROUP}/v1beta2`)).status).toBe(404);
    const crd = await extensions.readCustomResourceDefinition({
      name: `${VPAS}.${GROUP}`,
    });
    expect(
      crd.spec.versions.map(({ name, served, storage }) => ({
        name,
        served,
        storage,
      })),
    ).toEqual([
      { name: 'v1', served: true, storage: true },
      { name: 'v1beta2', served: false, storage: false },
    ]);
  });

  it('accepts an upstream-style VPA and returns it exactly as written', async () => {
    const created = await createVpa(vpaObject('web', upstreamStyleSpec));
    expect(created['spec']).toEqual(upstreamStyleSpec);
    const read = await readVpa('web');
    expect(read['spec']).toEqual(upstreamStyleSpec);
    expect(read['status']).toBeUndefined();
    expect((read['metadata'] as Json)['generation']).toBe(1);
  });

  it('writes status only through the status subresource, as upstream does (JSON patch add /status)', async () => {
    await kube.customObjects.patchNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: VPAS,
      name: 'web',
      body: [{ op: 'add', path: '/status', value: recommendedStatus }],
    });
    const withStatus = await readVpa('web');
    expect(withStatus['status']).toEqual(recommendedStatus);
    expect(withStatus['spec']).toEqual(upstreamStyleSpec);
    // A status write is not a spec change.
    expect((withStatus['metadata'] as Json)['generation']).toBe(1);

    // A plain update of the main resource changes the spec and ignores the status it carries.
    const changedSpec = {
      ...upstreamStyleSpec,
      updatePolicy: { ...upstreamStyleSpec.updatePolicy, minReplicas: 3 },
    };
    const updated = (await kube.customObjects.replaceNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: VPAS,
      name: 'web',
      body: {
        ...withStatus,
        spec: changedSpec,
        status: { recommendation: {}, conditions: [] },
      },
    })) as Json;
    expect(updated['status']).toEqual(recommendedStatus);
    const reread = await readVpa('web');
    expect(reread['spec']).toEqual(changedSpec);
    expect(reread['status']).toEqual(recommendedStatus);
    expect((reread['metadata'] as Json)['generation']).toBe(2);
  });

  it('prints the upstream columns: Mode, CPU, Mem, Provided, Age, and wide MinReplicas, OOMSeconds', async () => {
    const table = await getJson(
      `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${VPAS}/web`,
      'application/json;as=Table;v=v1;g=meta.k8s.io',
    );
    expect(table.status).toBe(200);
    const columns = (table.body['columnDefinitions'] as Json[]).map(
      ({ name, type, priority }) => ({ name, type, priority }),
    );
    expect(columns).toEqual([
      { name: 'Name', type: 'string', priority: 0 },
      { name: 'Mode', type: 'string', priority: 0 },
      { name: 'CPU', type: 'string', priority: 0 },
      { name: 'Mem', type: 'string', priority: 0 },
      { name: 'Provided', type: 'string', priority: 0 },
      { name: 'Age', type: 'date', priority: 0 },
      { name: 'MinReplicas', type: 'integer', priority: 1 },
      { name: 'OOMSeconds', type: 'integer', priority: 1 },
    ]);
    const [row] = table.body['rows'] as { cells: unknown[] }[];
    expect(row?.cells).toEqual([
      'web',
      'Recreate',
      '587m',
      '262144k',
      'True',
      expect.any(String),
      3,
      null,
    ]);
  });

  it.each([
    {
      problem: 'no targetRef',
      spec: { updatePolicy: { updateMode: 'Off' } },
      field: 'spec.targetRef',
    },
    {
      problem: 'a targetRef without a name',
      spec: { targetRef: { kind: 'Deployment' } },
      field: 'spec.targetRef.name',
    },
    {
      problem: 'updateMode Sometimes',
      spec: {
        targetRef: { kind: 'Deployment', name: 'web' },
        updatePolicy: { updateMode: 'Sometimes' },
      },
      field: 'spec.updatePolicy.updateMode',
    },
    {
      problem: 'container policy mode Maybe',
      spec: {
        targetRef: { kind: 'Deployment', name: 'web' },
        resourcePolicy: {
          containerPolicies: [{ containerName: 'app', mode: 'Maybe' }],
        },
      },
      field: 'spec.resourcePolicy.containerPolicies[0].mode',
    },
    {
      problem: 'a quantity that is not one',
      spec: {
        targetRef: { kind: 'Deployment', name: 'web' },
        resourcePolicy: {
          containerPolicies: [
            { containerName: 'app', minAllowed: { cpu: 'lots' } },
          ],
        },
      },
      field: 'spec.resourcePolicy.containerPolicies[0].minAllowed.cpu',
    },
  ])(
    'rejects a VPA with $problem: 422 naming $field',
    async ({ spec, field }) => {
      const error: unknown = await createVpa(vpaObject('invalid', spec)).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      expect(error).toBeDefined();
      expect(httpStatusOf(error)).toBe(422);
      const status = failureStatus(error);
      expect(status.reason).toBe('Invalid');
      expect(status.details?.causes?.map((cause) => cause.field)).toContain(
        field,
      );
      expect(status.message).toContain(field);
    },
  );

  it('leaves the webhook rules (§6.3) to the webhook, as upstream does: two recommenders and minReplicas 0 pass the schema', async () => {
    const spec = {
      targetRef: { kind: 'Deployment', name: 'web' },
      updatePolicy: { updateMode: 'Auto', minReplicas: 0 },
      recommenders: [{ name: 'default' }, { name: 'other' }],
    };
    const created = await createVpa(vpaObject('webhook-rules', spec));
    expect(created['spec']).toEqual(spec);
  });

  describe('VerticalPodAutoscalerCheckpoint', () => {
    function createCheckpoint(body: Json): Promise<Json> {
      return kube.customObjects.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: CHECKPOINTS,
        body,
      }) as Promise<Json>;
    }
    function readCheckpoint(name: string): Promise<Json> {
      return kube.customObjects.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: CHECKPOINTS,
        name,
      }) as Promise<Json>;
    }
    function checkpointObject(name: string, spec: Json, status: Json): Json {
      return {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'VerticalPodAutoscalerCheckpoint',
        metadata: { name },
        spec,
        status,
      };
    }

    it('round-trips a checkpoint in the exact JSON shape upstream writes', async () => {
      const spec = { vpaObjectName: 'web', containerName: 'app' };
      const status = {
        lastUpdateTime: '2024-01-02T03:04:05Z',
        version: 'v3',
        cpuHistogram: {
          referenceTimestamp: '2024-01-02T00:00:00Z',
          bucketWeights: { '36': 5000, '49': 10000 },
          totalWeight: 0.21213203435596426,
        },
        memoryHistogram: {
          referenceTimestamp: '2024-01-03T00:00:00Z',
          bucketWeights: { '71': 10000, '72': 3, '100': 1 },
          totalWeight: 12.75,
        },
        firstSampleStart: '2024-01-01T10:00:00Z',
        lastSampleStart: '2024-01-02T03:04:00Z',
        totalSamplesCount: 1234,
      };
      const created = await createCheckpoint(
        checkpointObject('web-app', spec, status),
      );
      expect(created['status']).toEqual(status);
      const read = await readCheckpoint('web-app');
      expect(read['spec']).toEqual(spec);
      expect(read['status']).toEqual(status);
      expect((read['status'] as typeof status).cpuHistogram.totalWeight).toBe(
        0.21213203435596426,
      );
    });

    it('accepts null timestamps and an empty histogram, and keeps the nulls', async () => {
      const status = {
        lastUpdateTime: null,
        version: 'v3',
        cpuHistogram: {
          referenceTimestamp: null,
          bucketWeights: {},
          totalWeight: 0,
        },
        memoryHistogram: {
          referenceTimestamp: null,
          bucketWeights: {},
          totalWeight: 0,
        },
        firstSampleStart: null,
        lastSampleStart: null,
        totalSamplesCount: 0,
      };
      await createCheckpoint(
        checkpointObject(
          'web-sidecar',
          { vpaObjectName: 'web', containerName: 'sidecar' },
          status,
        ),
      );
      expect((await readCheckpoint('web-sidecar'))['status']).toEqual(status);
    });

    it('has no status subresource: the JSON patch upstream writes (replace /status) changes the status', async () => {
      const status = {
        lastUpdateTime: '2024-01-04T00:00:00Z',
        version: 'v3',
        cpuHistogram: {
          referenceTimestamp: '2024-01-04T00:00:00Z',
          bucketWeights: { '12': 10000 },
          totalWeight: 1.5,
        },
        memoryHistogram: {
          referenceTimestamp: '2024-01-04T00:00:00Z',
          bucketWeights: { '40': 10000, '41': 250 },
          totalWeight: 2,
        },
        firstSampleStart: '2024-01-03T12:00:00Z',
        lastSampleStart: '2024-01-03T23:59:00Z',
        totalSamplesCount: 7,
      };
      await kube.customObjects.patchNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: CHECKPOINTS,
        name: 'web-sidecar',
        body: [{ op: 'replace', path: '/status', value: status }],
      });
      expect((await readCheckpoint('web-sidecar'))['status']).toEqual(status);
    });
  });

  /**
   * Why v1beta2 stays defined although nothing serves it: a cluster that once stored VPAs
   * as v1beta2 lists it in status.storedVersions, and the API server refuses a CRD update
   * that drops such a version. Shown on a copy of our CRD in a scratch group, so the real
   * one is left alone.
   */
  describe('applied over a CRD whose storedVersions still list v1beta2', () => {
    const scratchGroup = 'autoscaling.e2e.tandem.dev';
    const scratchName = `${VPAS}.${scratchGroup}`;
    function scratchCopy(
      withV1beta2: boolean,
      resourceVersion?: string,
    ): V1CustomResourceDefinition {
      const [ours] = loadCustomResourceDefinitions(VPA_CRD_FILE);
      if (ours === undefined) throw new Error('no VPA CRD in deploy/crds');
      return {
        ...ours,
        metadata: { name: scratchName, resourceVersion },
        spec: {
          ...ours.spec,
          group: scratchGroup,
          versions: ours.spec.versions.filter(
            (version) => withV1beta2 || version.name !== 'v1beta2',
          ),
        },
      };
    }
    afterAll(async () => {
      await extensions
        .deleteCustomResourceDefinition({ name: scratchName })
        .catch((error: unknown) => {
          if (httpStatusOf(error) !== 404) throw error;
        });
    });

    it('is accepted with v1beta2 defined, refused without it', async () => {
      await applyCustomResourceDefinition(kube, scratchCopy(true));
      const installed = await extensions.readCustomResourceDefinition({
        name: scratchName,
      });
      // What a cluster that ran an old VPA release (v1beta2 as the storage version) has.
      const upgraded = await extensions.replaceCustomResourceDefinitionStatus({
        name: scratchName,
        body: {
          ...installed,
          status: { ...installed.status, storedVersions: ['v1beta2', 'v1'] },
        },
      });
      expect(upgraded.status?.storedVersions).toEqual(['v1beta2', 'v1']);

      const withoutV1beta2: unknown = await extensions
        .replaceCustomResourceDefinition({
          name: scratchName,
          body: scratchCopy(false, upgraded.metadata?.resourceVersion),
        })
        .then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
      expect(httpStatusOf(withoutV1beta2)).toBe(422);
      expect(failureStatus(withoutV1beta2).message).toContain(
        'status.storedVersions[0]',
      );

      const reapplied = await applyCustomResourceDefinition(
        kube,
        scratchCopy(true),
      );
      expect(reapplied.status?.storedVersions).toEqual(['v1beta2', 'v1']);
    });
  });
});
