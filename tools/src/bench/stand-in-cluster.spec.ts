import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KubeConfig,
  type KubernetesListObject,
  type V1Pod,
} from '@kubernetes/client-node';
import {
  startStandInCluster,
  type StandInCluster,
} from './stand-in-cluster.js';

const SHAPE = { pods: 7, namespaces: 2, replicaSets: 3 };

describe('the API server stand-in', () => {
  let dir: string;
  let cluster: StandInCluster;
  let server: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tandem-stand-in-'));
    cluster = await startStandInCluster({
      shape: SHAPE,
      requestheaderCaPem: 'ca',
      kubeconfigFile: join(dir, 'kubeconfig'),
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cluster.kubeconfigFile);
    server = kubeConfig.getCurrentCluster()?.server ?? '';
  });
  afterAll(async () => {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async (path: string) => {
    const response = await fetch(`${server}${path}`);
    return {
      status: response.status,
      body: (await response.json()) as KubernetesListObject<V1Pod>,
    };
  };

  it('pages with continue tokens through exactly the unpaginated list', async () => {
    const whole = (await list('/api/v1/pods')).body;
    const paged: V1Pod[] = [];
    let token: string | undefined = '';
    while (token !== undefined) {
      const { body } = await list(
        `/api/v1/pods?limit=3&continue=${encodeURIComponent(token)}`,
      );
      paged.push(...body.items);
      expect(body.metadata?.remainingItemCount ?? 0).toBe(
        SHAPE.pods - paged.length,
      );
      // As the API server writes it (client-node's model calls it `_continue`).
      token = (body.metadata as { continue?: string } | undefined)?.continue;
    }
    expect(paged.map((pod) => pod.metadata?.name)).toEqual(
      whole.items.map((pod) => pod.metadata?.name),
    );
    expect(new Set(paged.map((pod) => pod.metadata?.name)).size).toBe(
      SHAPE.pods,
    );
  });

  it('owns every pod by a listed ReplicaSet of its namespace', async () => {
    const pods = (await list('/api/v1/pods')).body.items;
    const sets = (await list('/apis/apps/v1/replicasets')).body.items;
    expect(sets).toHaveLength(SHAPE.replicaSets);
    for (const pod of pods) {
      const owner = pod.metadata?.ownerReferences?.[0];
      expect(
        sets.some(
          (set) =>
            set.metadata?.name === owner?.name &&
            set.metadata?.uid === owner?.uid &&
            set.metadata?.namespace === pod.metadata?.namespace,
        ),
      ).toBe(true);
    }
  });

  it('writes managedFields keyed as the API server keys list elements', async () => {
    const [pod] = (await list('/api/v1/pods?limit=1')).body.items;
    const fields = pod?.metadata?.managedFields?.[0]?.fieldsV1 as {
      'f:spec': { 'f:containers': Record<string, unknown> };
    };
    expect(Object.keys(fields['f:spec']['f:containers'])).toEqual([
      '.',
      'k:{"name":"app"}',
      'k:{"name":"sidecar"}',
    ]);
  });

  it('answers 410 to a continue token it did not issue and 404 elsewhere', async () => {
    expect((await list('/api/v1/pods?limit=2&continue=garbage')).status).toBe(
      410,
    );
    expect((await list('/api/v1/nodes')).status).toBe(404);
    expect(cluster.unexpected).toEqual(['GET /api/v1/nodes']);
  });
});
