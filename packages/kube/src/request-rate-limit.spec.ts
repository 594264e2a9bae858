import { kubeConnectionOf } from './connection/kube-connection.js';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubeGetJson } from './connection/kube-request.js';
import {
  kubeConfigFor,
  standInApiServer,
} from './stand-in-api-server.fixtures.js';
import { limitRequestRate } from './request-rate-limit.js';

/** Answers a namespace list for the API client, `{}` for the raw GETs. */
const recordingServer = () =>
  standInApiServer((seen) => ({
    status: 200,
    body: seen.path.startsWith('/api/v1/namespaces')
      ? { apiVersion: 'v1', kind: 'NamespaceList', items: [] }
      : {},
  }));

describe('limitRequestRate', () => {
  let recording: Awaited<ReturnType<typeof recordingServer>>;
  beforeEach(async () => (recording = await recordingServer()));
  afterEach(
    () => new Promise((resolve) => recording.server.close(() => resolve(1))),
  );

  /** A clock frozen at 0 that records each wait asked for and returns at once. */
  function recordedClock() {
    const waitsMs: number[] = [];
    return {
      waitsMs,
      clock: {
        now: () => 0,
        sleep: async (ms: number) => waitsMs.push(ms),
      },
    };
  }

  it('lets a burst through at once, then one request per 1/qps seconds, across raw GETs and API clients', async () => {
    const kubeConfig = kubeConfigFor(recording.url);
    const { waitsMs, clock } = recordedClock();
    limitRequestRate(kubeConfig, 20, 3, clock);
    const get = kubeGetJson(kubeConnectionOf(kubeConfig));
    const core = kubeConfig.makeApiClient(CoreV1Api);
    await Promise.all([
      ...Array.from({ length: 5 }, () => get('/version')),
      ...Array.from({ length: 4 }, () => core.listNamespace()),
    ]);

    expect(recording.arrivalsMs).toHaveLength(9);
    // 3 at once, then the 6 others queued at 50 ms intervals.
    expect(waitsMs).toEqual([50, 100, 150, 200, 250, 300]);
  });

  it('really waits on the real clock', async () => {
    const kubeConfig = kubeConfigFor(recording.url);
    limitRequestRate(kubeConfig, 20, 3);
    const get = kubeGetJson(kubeConnectionOf(kubeConfig));
    const startMs = performance.now();
    await Promise.all(Array.from({ length: 9 }, () => get('/version')));
    expect(Math.max(...recording.arrivalsMs) - startMs).toBeGreaterThanOrEqual(
      290,
    );
  });

  it('leaves requests alone with a negative rate, as client-go does', async () => {
    const kubeConfig = kubeConfigFor(recording.url);
    const { waitsMs, clock } = recordedClock();
    limitRequestRate(kubeConfig, -1, 0, clock);
    const get = kubeGetJson(kubeConnectionOf(kubeConfig));
    await Promise.all(Array.from({ length: 20 }, () => get('/version')));
    expect(recording.arrivalsMs).toHaveLength(20);
    expect(waitsMs).toEqual([]);
  });

  it("reads a rate of 0 as client-go's default, 5 per second after a burst of 10", async () => {
    const kubeConfig = kubeConfigFor(recording.url);
    const { waitsMs, clock } = recordedClock();
    limitRequestRate(kubeConfig, 0, 0, clock);
    const get = kubeGetJson(kubeConnectionOf(kubeConfig));
    await Promise.all(Array.from({ length: 11 }, () => get('/version')));
    expect(recording.arrivalsMs).toHaveLength(11);
    expect(waitsMs).toEqual([200]);
  });
});
