import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { controlPlaneValue, isLocalCluster } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';

const GROUP = 'e2e.tandem.dev';
const VERSION = 'v1alpha1';
const API_SERVICE = `${VERSION}.${GROUP}`;

/**
 * A minimal aggregated API server on 127.0.0.1, the way Tandem's metrics adapter will
 * run next to the local control plane: real TLS with a certificate of the cluster CA,
 * reached through an APIService whose Service is an ExternalName for 127.0.0.1.
 */
function startPingServer(): Promise<Server> {
  const server = createServer(
    {
      cert: readFileSync(controlPlaneValue('TANDEM_CP_SERVING_CERT')),
      key: readFileSync(controlPlaneValue('TANDEM_CP_SERVING_KEY')),
    },
    (request, response) => {
      const path = new URL(request.url ?? '/', 'https://localhost').pathname;
      const namespaced = new RegExp(
        `^/apis/${GROUP}/${VERSION}/namespaces/([^/]+)/pings$`,
      ).exec(path);
      let body: unknown;
      if (path === `/apis/${GROUP}/${VERSION}`) {
        body = {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: `${GROUP}/${VERSION}`,
          resources: [
            {
              name: 'pings',
              singularName: 'ping',
              namespaced: true,
              kind: 'Ping',
              verbs: ['list'],
            },
          ],
        };
      } else if (namespaced !== null) {
        body = {
          kind: 'PingList',
          apiVersion: `${GROUP}/${VERSION}`,
          metadata: {},
          // The aggregator authenticates the caller and forwards who it is in these headers.
          items: [
            {
              metadata: { name: 'pong', namespace: namespaced[1] },
              servedFor: request.headers['x-remote-user'] ?? '',
            },
          ],
        };
      }
      response.writeHead(body === undefined ? 404 : 200, {
        'content-type': 'application/json',
      });
      response.end(
        JSON.stringify(
          body ?? { kind: 'Status', status: 'Failure', code: 404 },
        ),
      );
    },
  );
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server)),
  );
}

const describeLocal = isLocalCluster() ? describe : describe.skip;

describeLocal('an APIService backed by a process on 127.0.0.1', () => {
  const { kube, namespace: currentNamespace } = useTestNamespace('aggregation');
  let server: Server;
  let serviceName: string;

  beforeAll(async () => {
    serviceName = `ping-${currentNamespace()}`;
    server = await startPingServer();
  });
  afterAll(async () => {
    await kube.apiRegistration
      .deleteAPIService({ name: API_SERVICE })
      .catch(() => undefined);
    await kube.core
      .deleteNamespacedService({ namespace: 'default', name: serviceName })
      .catch(() => undefined);
    server.close();
  });

  it('is Available and serves requests through the kube-apiserver', async () => {
    const port = (server.address() as AddressInfo).port;
    await kube.apiRegistration.createAPIService({
      body: {
        metadata: { name: API_SERVICE },
        spec: {
          group: GROUP,
          version: VERSION,
          groupPriorityMinimum: 1000,
          versionPriority: 15,
          caBundle: readFileSync(
            controlPlaneValue('TANDEM_CP_CA_CERT'),
          ).toString('base64'),
          service: { namespace: 'default', name: serviceName, port },
        },
      },
    });
    // The Service comes second: the aggregator's availability check reruns when a
    // Service it needs appears, but not when an APIService arrives before its informer
    // has seen an already-created Service (seen here as a stuck ServiceNotFound). It lives
    // in `default` because the control plane's serving certificate names *.default.svc.
    await kube.core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: serviceName },
        spec: { type: 'ExternalName', externalName: '127.0.0.1' },
      },
    });
    await waitFor(
      `APIService ${API_SERVICE} to become Available`,
      async () => {
        const status = (
          await kube.apiRegistration.readAPIService({ name: API_SERVICE })
        ).status;
        return status?.conditions?.find(
          (c) => c.type === 'Available' && c.status === 'True',
        );
      },
      { timeoutMs: 60_000 },
      async () =>
        JSON.stringify(
          (await kube.apiRegistration.readAPIService({ name: API_SERVICE }))
            .status?.conditions,
        ),
    );

    const namespace = currentNamespace();
    const list = (await kube.customObjects.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'pings',
    })) as {
      items: {
        metadata: { name: string; namespace: string };
        servedFor: string;
      }[];
    };
    expect(list.items).toHaveLength(1);
    expect(list.items[0]?.metadata).toEqual({ name: 'pong', namespace });
    expect(list.items[0]?.servedFor).not.toBe('');
  });
});
