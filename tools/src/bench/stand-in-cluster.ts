import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { podAt, replicaSetAt, type ClusterShape } from './realistic-cluster.js';
import {
  deploymentAt,
  hpaAt,
  podMetricsOf,
  vpaAt,
} from './stand-in-workloads.js';

/** Every list answers at this resourceVersion: nothing changes while a benchmark runs. */
const RESOURCE_VERSION = '1000';
/** Items serialized per write: small enough that a page is never held whole. */
const WRITE_BATCH = 64;

interface Collection {
  kind: string;
  apiVersion: string;
  count: number;
  at: (index: number) => KubernetesObject;
}

export interface StandInCluster {
  /** A kubeconfig file for the stand-in (plain HTTP, a bearer token). */
  kubeconfigFile: string;
  /** Requests for paths the stand-in does not serve (answered 404), for the failure message. */
  unexpected: string[];
  close(): Promise<void>;
}

/**
 * An API server stand-in holding `shape`'s pods and ReplicaSets (and no StatefulSets,
 * DaemonSets or Jobs), serving what a list+watch cache asks for: lists, paginated as
 * kube-apiserver paginates them (`limit`, `continue`, `metadata.continue`,
 * `remainingItemCount`) or whole when no `limit` is given, and watches held open without an
 * event until their `timeoutSeconds`. Each object is made and serialized as it is written,
 * so the stand-in's own memory stays flat however large the cluster: it runs in the
 * benchmark's process, and what is measured is the process that lists. Also serves
 * kube-system/extension-apiserver-authentication, which the metrics adapter waits for.
 */
export async function startStandInCluster({
  shape,
  requestheaderCaPem = '',
  kubeconfigFile,
  workloads = false,
}: {
  shape: ClusterShape;
  requestheaderCaPem?: string;
  kubeconfigFile: string;
  /**
   * Also what a dashboard reads: each ReplicaSet's Deployment with a VPA and an HPA
   * (`stand-in-workloads.ts`), no events, and metrics.k8s.io's pod usage per namespace.
   */
  workloads?: boolean;
}): Promise<StandInCluster> {
  const collections = new Map<string, Collection>([
    [
      '/api/v1/pods',
      {
        kind: 'Pod',
        apiVersion: 'v1',
        count: shape.pods,
        at: (index) => podAt(shape, index),
      },
    ],
    [
      '/apis/apps/v1/replicasets',
      {
        kind: 'ReplicaSet',
        apiVersion: 'apps/v1',
        count: shape.replicaSets,
        at: (index) => replicaSetAt(shape, index),
      },
    ],
    ['/apis/apps/v1/statefulsets', empty('StatefulSet', 'apps/v1')],
    ['/apis/apps/v1/daemonsets', empty('DaemonSet', 'apps/v1')],
    ['/apis/batch/v1/jobs', empty('Job', 'batch/v1')],
    [
      '/api/v1/namespaces/kube-system/configmaps',
      {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        count: 1,
        at: () => authenticationConfigMap(requestheaderCaPem),
      },
    ],
    ...(workloads ? workloadCollections(shape) : []),
  ]);
  // Usage holds still, and making 6,000 pods at each sample would stall the load
  // generator that shares this process: each namespace's answer is written once.
  const podMetricsAnswers = new Map<string, string>();
  const podMetricsText = (namespace: string): string => {
    const text =
      podMetricsAnswers.get(namespace) ??
      JSON.stringify(podMetricsOf(shape, namespace));
    podMetricsAnswers.set(namespace, text);
    return text;
  };
  const unexpected: string[] = [];
  const watches = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const collection = collections.get(url.pathname);
    const metricsOf = workloads
      ? POD_METRICS_PATH.exec(url.pathname)?.[1]
      : undefined;
    if (request.method === 'GET' && metricsOf !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(podMetricsText(metricsOf));
      return;
    }
    if (request.method !== 'GET' || collection === undefined) {
      unexpected.push(`${request.method ?? '?'} ${request.url ?? ''}`);
      answerStatus(response, 404, `${url.pathname} is not served here`);
      return;
    }
    if (['true', '1'].includes(url.searchParams.get('watch') ?? '')) {
      holdWatch(request, response, url, watches);
      return;
    }
    const start = startOf(url.searchParams.get('continue'));
    if (start === undefined) {
      answerStatus(response, 410, 'the continue token is not valid');
      return;
    }
    writeList(response, collection, start, limitOf(url)).catch(
      (error: unknown) => response.destroy(error as Error),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  writeFileSync(kubeconfigFile, kubeconfigFor(`http://127.0.0.1:${port}`));
  return {
    kubeconfigFile,
    unexpected,
    async close() {
      for (const watch of watches) watch.end();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const POD_METRICS_PATH =
  /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/;

function workloadCollections(shape: ClusterShape): [string, Collection][] {
  const perWorkload = (
    kind: string,
    apiVersion: string,
    at: Collection['at'],
  ): Collection => ({ kind, apiVersion, count: shape.replicaSets, at });
  return [
    [
      '/apis/apps/v1/deployments',
      perWorkload('Deployment', 'apps/v1', (index) =>
        deploymentAt(shape, index),
      ),
    ],
    [
      '/apis/autoscaling.k8s.io/v1/verticalpodautoscalers',
      perWorkload('VerticalPodAutoscaler', 'autoscaling.k8s.io/v1', (index) =>
        vpaAt(shape, index),
      ),
    ],
    [
      '/apis/autoscaling/v2/horizontalpodautoscalers',
      perWorkload('HorizontalPodAutoscaler', 'autoscaling/v2', (index) =>
        hpaAt(shape, index),
      ),
    ],
    ['/api/v1/events', empty('Event', 'v1')],
  ];
}

function empty(kind: string, apiVersion: string): Collection {
  return {
    kind,
    apiVersion,
    count: 0,
    at: () => {
      throw new Error(`no ${kind} in the stand-in cluster`);
    },
  };
}

/** Items `start` to `start + limit` (all the rest without a limit), written as made. */
async function writeList(
  response: ServerResponse,
  collection: Collection,
  start: number,
  limit: number | undefined,
): Promise<void> {
  const end = Math.min(
    collection.count,
    limit === undefined ? Number.POSITIVE_INFINITY : start + limit,
  );
  const metadata =
    end < collection.count
      ? {
          resourceVersion: RESOURCE_VERSION,
          continue: continueToken(end),
          remainingItemCount: collection.count - end,
        }
      : { resourceVersion: RESOURCE_VERSION };
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write(
    `{"kind":"${collection.kind}List","apiVersion":"${collection.apiVersion}","metadata":${JSON.stringify(metadata)},"items":[`,
  );
  for (let from = start; from < end; from += WRITE_BATCH) {
    const items: string[] = [];
    for (let index = from; index < Math.min(end, from + WRITE_BATCH); index++)
      items.push(JSON.stringify(collection.at(index)));
    const flushed = response.write(`${from > start ? ',' : ''}${items.join()}`);
    if (!flushed) await once(response, 'drain');
  }
  response.end(']}');
}

/** Held open without an event until `timeoutSeconds`, when kube-apiserver ends a watch too. */
function holdWatch(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  watches: Set<ServerResponse>,
): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.flushHeaders();
  watches.add(response);
  const seconds = Number(url.searchParams.get('timeoutSeconds') ?? '1800');
  const timer = setTimeout(() => response.end(), seconds * 1000);
  request.socket.once('close', () => {
    clearTimeout(timer);
    watches.delete(response);
  });
}

/** As kube-apiserver's (apiserver/pkg/storage/continue.go): base64 of the list's RV and the next key. */
function continueToken(next: number): string {
  return Buffer.from(
    JSON.stringify({
      v: 'meta.k8s.io/v1',
      rv: Number(RESOURCE_VERSION),
      start: String(next),
    }),
  ).toString('base64url');
}

function startOf(token: string | null): number | undefined {
  if (token === null || token === '') return 0;
  try {
    const { start } = JSON.parse(
      Buffer.from(token, 'base64url').toString(),
    ) as { start?: unknown };
    const index = Number(start);
    return Number.isInteger(index) && index >= 0 ? index : undefined;
  } catch {
    return undefined;
  }
}

function limitOf(url: URL): number | undefined {
  const limit = Number(url.searchParams.get('limit') ?? '0');
  return Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

function answerStatus(
  response: ServerResponse,
  code: number,
  message: string,
): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message,
      code,
    }),
  );
}

/** What kube-apiserver publishes for extension API servers (front-proxy CA and headers). */
function authenticationConfigMap(requestheaderCaPem: string): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace: 'kube-system',
      name: 'extension-apiserver-authentication',
      resourceVersion: '42',
    },
    data: {
      'requestheader-client-ca-file': requestheaderCaPem,
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    },
  } as KubernetesObject;
}

function kubeconfigFor(server: string): string {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    // client-node refuses an http:// server unless TLS verification is off.
    clusters: [{ name: 'stand-in', server, skipTLSVerify: true }],
    users: [{ name: 'bench', token: 'bench' }],
    contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'bench' }],
    currentContext: 'stand-in',
  });
  return kubeConfig.exportConfig();
}
