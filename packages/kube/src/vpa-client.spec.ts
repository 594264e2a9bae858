import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';
import {
  kubeConfigFor,
  type Seen,
  standInApiServer,
} from './stand-in-api-server.fixtures.js';
import { vpaClient, type VpaClient } from './vpa-client.js';

function clientFor(server: string): VpaClient {
  return vpaClient(kubeConfigFor(server));
}

const BASE = '/apis/autoscaling.k8s.io/v1';
const CHECKPOINT: VerticalPodAutoscalerCheckpoint = {
  apiVersion: 'autoscaling.k8s.io/v1',
  kind: 'VerticalPodAutoscalerCheckpoint',
  metadata: { namespace: 'shop', name: 'web-app' },
  spec: { vpaObjectName: 'web', containerName: 'app' },
  status: { version: 'v3', totalSamplesCount: 7 },
};

describe('vpaClient', () => {
  let running: Awaited<ReturnType<typeof standInApiServer>> | undefined;
  const start = async (
    respond: (seen: Seen) => { status: number; body?: unknown },
  ) => {
    running = await standInApiServer(respond);
    return { client: clientFor(running.url), seen: running.seen };
  };
  afterEach(async () => {
    await new Promise((resolve) => running?.server.close(resolve));
    running = undefined;
  });

  it('writes a VPA status with JSON Patch `add /status` on the status subresource', async () => {
    const { client, seen } = await start(() => ({ status: 200 }));
    await client.writeStatus('shop', 'web', { conditions: [] });
    expect(seen).toEqual([
      {
        method: 'PATCH',
        path: `${BASE}/namespaces/shop/verticalpodautoscalers/web/status`,
        contentType: 'application/json-patch+json',
        body: [{ op: 'add', path: '/status', value: { conditions: [] } }],
      },
    ]);
  });

  it('writes a checkpoint with `replace /status`, creating it when it does not exist', async () => {
    const { client, seen } = await start(({ method }) => ({
      status: method === 'PATCH' ? 404 : 201,
    }));
    await client.writeCheckpoint(CHECKPOINT);
    expect(seen).toEqual([
      {
        method: 'PATCH',
        path: `${BASE}/namespaces/shop/verticalpodautoscalercheckpoints/web-app`,
        contentType: 'application/json-patch+json',
        body: [{ op: 'replace', path: '/status', value: CHECKPOINT.status }],
      },
      {
        method: 'POST',
        path: `${BASE}/namespaces/shop/verticalpodautoscalercheckpoints`,
        contentType: 'application/json',
        body: CHECKPOINT,
      },
    ]);
  });

  it('passes on a checkpoint patch failure other than 404', async () => {
    const { client, seen } = await start(() => ({ status: 500 }));
    await expect(client.writeCheckpoint(CHECKPOINT)).rejects.toMatchObject({
      code: 500,
    });
    expect(seen).toHaveLength(1);
  });

  it('deletes a checkpoint, one already gone included', async () => {
    const { client, seen } = await start(() => ({ status: 404 }));
    await client.deleteCheckpoint('shop', 'web-app');
    expect(seen).toMatchObject([
      {
        method: 'DELETE',
        path: `${BASE}/namespaces/shop/verticalpodautoscalercheckpoints/web-app`,
      },
    ]);
  });

  it('lists checkpoints of one namespace or of all', async () => {
    const { client, seen } = await start(() => ({
      status: 200,
      body: { items: [CHECKPOINT] },
    }));
    await expect(client.listCheckpoints('shop')).resolves.toEqual([CHECKPOINT]);
    await expect(client.listCheckpoints(undefined)).resolves.toEqual([
      CHECKPOINT,
    ]);
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET ${BASE}/namespaces/shop/verticalpodautoscalercheckpoints`,
      `GET ${BASE}/verticalpodautoscalercheckpoints`,
    ]);
  });

  it('reads a VPA, and a checkpoint or undefined when there is none', async () => {
    const vpa = { metadata: { name: 'web' }, spec: {} };
    const { client, seen } = await start(({ path }) =>
      path.includes('checkpoints')
        ? { status: 404 }
        : { status: 200, body: vpa },
    );
    await expect(client.readVpa('shop', 'web')).resolves.toEqual(vpa);
    await expect(
      client.readCheckpoint('shop', 'web-app'),
    ).resolves.toBeUndefined();
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET ${BASE}/namespaces/shop/verticalpodautoscalers/web`,
      `GET ${BASE}/namespaces/shop/verticalpodautoscalercheckpoints/web-app`,
    ]);
  });
});
