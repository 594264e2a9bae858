import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import {
  plainConnection,
  vpaTargetResolution,
  type VpaTargetResolution,
  type WatchLike,
} from '@tandem/kube';
import { createRegistry, healthy, type Registry } from '@tandem/telemetry';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { countingColdCaches } from './cold-caches.js';
import { reviewApp } from './review-app.js';
import {
  podReview,
  postReview,
  vpa as reviewedVpa,
} from './review.fixtures.js';
import { vpaCandidates, warmTargetCaches } from './vpa-candidates.js';
import { webhookMetrics } from './webhook-metrics.js';

const DEADLINE_MS = 50;
const DEPLOYMENTS = '/apis/apps/v1/namespaces/demo/deployments';
const REPLICASETS = '/apis/apps/v1/namespaces/demo/replicasets';

/** A watch that stays open and quiet until it is aborted. */
const quietWatch: WatchLike = {
  watch: async () => ({ abort: () => undefined }),
};

const vpa = reviewedVpa as unknown as VerticalPodAutoscaler;

const list = (items: unknown[]) => ({
  metadata: { resourceVersion: '1' },
  items,
});

/**
 * The webhook's wiring in main.ts (target resolution with the review deadline, candidates,
 * the cold-cache counter) in front of a stand-in API server whose answers the test sets.
 */
describe('a review that meets a cold cache', () => {
  let answers: Record<string, () => Promise<unknown>>;
  let targets: VpaTargetResolution;
  let registry: Registry;
  let server: Server;
  let url: string;

  beforeEach(async () => {
    answers = {};
    targets = vpaTargetResolution({
      connection: plainConnection('http://127.0.0.1:1'),
      namespace: 'demo',
      onError: () => undefined,
      get: (path) =>
        (answers[path] ?? (() => Promise.reject(new Error('overloaded'))))(),
      watch: quietWatch,
      syncTimeoutMs: DEADLINE_MS,
      // Unpaginated: one GET a collection, at the paths `answers` holds.
      listPageSize: 0,
    });
    registry = createRegistry();
    const metrics = webhookMetrics(registry);
    const app = reviewApp({
      context: countingColdCaches(
        {
          vpasInNamespace: () => vpaCandidates([vpa], targets),
          topMostController: targets.topMostController,
          limitRanges: async () => [],
          featureGates: {},
        },
        metrics.coldCache,
      ),
      metrics,
      recordEvent: () => undefined,
      registry,
      tracer: trace.getTracer('test'),
      logger: pino({ level: 'silent' }),
      health: () => healthy,
      readiness: () => healthy,
    });
    server = createServer(app);
    await new Promise<void>((resolve) =>
      server.listen(0, '127.0.0.1', resolve),
    );
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await targets.stop();
  });

  async function post(): Promise<{ warnings?: string[]; patch?: string }> {
    const { json } = await postReview(url, JSON.stringify(podReview));
    return json['response'] as { warnings?: string[]; patch?: string };
  }

  async function coldCount(cache: string): Promise<number> {
    const line = (await registry.metrics())
      .split('\n')
      .find((each) =>
        each.startsWith(`tandem_admission_cold_cache_total{cache="${cache}"}`),
      );
    return Number(line?.split(' ').pop() ?? 0);
  }

  it('admits the pod unchanged past the deadline, with a warning and a count', async () => {
    const started = Date.now();
    const response = await post();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.patch).toBeUndefined();
    expect(response.warnings?.join(' ')).toMatch(
      /the Deployment cache has not completed its first list within 0.05s/,
    );
    expect(await coldCount('Deployment')).toBe(1);
  });

  it("counts the owner walk's cold ReplicaSet cache too", async () => {
    answers[DEPLOYMENTS] = async () =>
      list([
        {
          metadata: { namespace: 'demo', name: 'web', resourceVersion: '1' },
          spec: { selector: { matchLabels: { app: 'web' } } },
        },
      ]);
    const response = await post();
    expect(response.patch).toBeUndefined();
    expect(response.warnings?.join(' ')).toMatch(
      /owner lookup failed for ReplicaSet demo\/web-6d4f: the ReplicaSet cache has not completed its first list/,
    );
    expect(await coldCount('ReplicaSet')).toBe(1);
  });

  it('applies the recommendation once the caches a VPA needs were warmed', async () => {
    answers[DEPLOYMENTS] = async () =>
      list([
        {
          metadata: { namespace: 'demo', name: 'web', resourceVersion: '1' },
          spec: { selector: { matchLabels: { app: 'web' } } },
        },
      ]);
    answers[REPLICASETS] = async () =>
      list([
        {
          metadata: {
            namespace: 'demo',
            name: 'web-6d4f',
            resourceVersion: '1',
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: 'web',
                controller: true,
              },
            ],
          },
        },
      ]);
    let announce: (event: { type: 'add'; object: unknown }) => void = () =>
      undefined;
    warmTargetCaches(
      { onEvent: (handler) => ((announce = handler as never), () => true) },
      targets,
      new Set(),
    );
    announce({ type: 'add', object: vpa });
    await targets.cachesSynced(['Deployment', 'ReplicaSet']);
    expect(targets.hasSynced()).toBe(true);

    const response = await post();
    expect(response.warnings).toBeUndefined();
    expect(response.patch).toBeDefined();
    expect(await coldCount('Deployment')).toBe(0);
  });
});
