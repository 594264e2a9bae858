import type {
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  PerContainer,
  UsageByPod,
} from './observed.js';
import type { HistoryTimings } from './workload-history.js';
import type { Labels, VerticalPodAutoscaler, VpaTarget } from '@tandem/vpa-api';
import { fleetSampler, type FleetSources } from './fleet-sampler.js';

const timings: HistoryTimings = {
  sampleIntervalMs: 1_000,
  recentMs: 10_000,
  coarseStepMs: 60_000,
  keepMs: 3_600_000,
};

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name,
});

const vpa = (namespace: string, name: string, target: string): ObservedVpa => ({
  namespace,
  name,
  targetRef: deployment(target),
  mode: 'Recreate',
  target: { app: { cpuMillicores: 300, memoryBytes: 1000 } },
  lowerBound: {},
  upperBound: {},
});

const hpa = (namespace: string, name: string, target: string): ObservedHpa => ({
  namespace,
  name,
  targetRef: deployment(target),
  minReplicas: 1,
  maxReplicas: 10,
  currentReplicas: 2,
  desiredReplicas: 2,
  metric: {
    type: 'Resource',
    name: 'cpu',
    targetType: 'Utilization',
    target: 50,
  },
});

const pod = (
  name: string,
  app: string,
  cpu = 100,
): { labels: Labels; pod: ObservedPod } => ({
  labels: { app },
  pod: {
    name,
    pending: false,
    ready: true,
    requests: { app: { cpuMillicores: cpu, memoryBytes: 1000 } },
    declared: { app: { cpuMillicores: cpu, memoryBytes: 1000 } },
  },
});

const used = (cpu: number): PerContainer => ({
  app: { cpuMillicores: cpu, memoryBytes: 500 },
});

/** A cluster in memory; tests change its fields between samples. */
class FakeCluster implements FleetSources {
  vpaList: ObservedVpa[] = [];
  hpaList: ObservedHpa[] = [];
  podsByNamespace = new Map<string, { labels: Labels; pod: ObservedPod }[]>();
  /** By `namespace/kind/name`; a workload missing here resolves as unsupported. */
  targets = new Map<string, VpaTarget | Error>();
  usageByNamespace = new Map<string, UsageByPod | Error>();
  resolved: VerticalPodAutoscaler[] = [];
  usageCalls: string[] = [];
  errors: { what: string; error: unknown }[] = [];

  vpas = () => this.vpaList;
  hpas = () => this.hpaList;
  pods = (namespace: string) => this.podsByNamespace.get(namespace) ?? [];

  resolve = async (vpaLike: VerticalPodAutoscaler): Promise<VpaTarget> => {
    this.resolved.push(vpaLike);
    const namespace = vpaLike.metadata?.namespace ?? '';
    const { kind, name } = vpaLike.spec.targetRef ?? { kind: '', name: '' };
    const target = this.targets.get(`${namespace}/${kind}/${name}`) ?? {
      unsupported: 'Cannot read targetRef',
    };
    if (target instanceof Error) throw target;
    return target;
  };

  usage = async (namespace: string): Promise<UsageByPod> => {
    this.usageCalls.push(namespace);
    const usage = this.usageByNamespace.get(namespace) ?? new Map();
    if (usage instanceof Error) throw usage;
    return usage;
  };

  onError = (what: string, error: unknown) => {
    this.errors.push({ what, error });
  };
}

/** A clock that moves 15 s each time it is read. */
function clock(startMs = 960_000) {
  let now = startMs - 15_000;
  return () => (now += 15_000);
}

function shopCluster(): FakeCluster {
  const cluster = new FakeCluster();
  cluster.vpaList = [vpa('shop', 'web-vpa', 'web')];
  cluster.hpaList = [
    hpa('shop', 'web-hpa', 'web'),
    hpa('shop', 'api-hpa', 'api'),
  ];
  cluster.podsByNamespace.set('shop', [
    pod('web-0', 'web'),
    pod('web-1', 'web'),
    pod('api-0', 'api'),
    pod('db-0', 'db'),
  ]);
  cluster.podsByNamespace.set('blog', [pod('web-9', 'web')]);
  cluster.targets.set('shop/Deployment/web', {
    selector: { matchLabels: { app: 'web' } },
  });
  cluster.targets.set('shop/Deployment/api', {
    selector: {
      matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }],
    },
  });
  cluster.usageByNamespace.set(
    'shop',
    new Map([
      ['web-0', used(100)],
      ['web-1', used(100)],
      ['api-0', used(50)],
    ]),
  );
  return cluster;
}

describe('fleetSampler', () => {
  it('has nothing before its first sample', () => {
    const sampler = fleetSampler(shopCluster(), timings, clock());
    expect(sampler.summaries()).toEqual([]);
    expect(sampler.lastSampleMs()).toBeUndefined();
    expect(sampler.history('shop/Deployment/web')).toBeUndefined();
    expect(sampler.podNames('shop/Deployment/web')).toEqual([]);
  });

  it('summarizes each workload a VPA or an HPA targets, once, with both when both do', async () => {
    const sampler = fleetSampler(shopCluster(), timings, clock());
    await sampler.sample();
    const summaries = sampler.summaries();
    expect(summaries.map((s) => `${s.namespace}/${s.kind}/${s.name}`)).toEqual([
      'shop/Deployment/api',
      'shop/Deployment/web',
    ]);
    const [api, web] = summaries;
    expect(api?.vpa).toBeNull();
    expect(api?.hpa?.name).toBe('api-hpa');
    expect(web?.vpa?.name).toBe('web-vpa');
    expect(web?.hpa?.name).toBe('web-hpa');
  });

  it("matches each workload's pods by the selector its target resolves to, in its namespace", async () => {
    const sampler = fleetSampler(shopCluster(), timings, clock());
    await sampler.sample();
    expect(sampler.podNames('shop/Deployment/web')).toEqual(['web-0', 'web-1']);
    expect(sampler.podNames('shop/Deployment/api')).toEqual(['api-0']);
    const [api, web] = sampler.summaries();
    expect(web?.pods).toBe(2);
    expect(api?.pods).toBe(1);
    // 100m used of 100m against a 50 % target: a native HPA would double the 2 replicas.
    expect(web?.nativeEquivalentReplicas).toBe(4);
    expect(web?.usage).toEqual({
      app: { cpuMillicores: 100, memoryBytes: 500 },
    });
  });

  it('asks to resolve a VPA-like object pointing at the workload', async () => {
    const cluster = shopCluster();
    await fleetSampler(cluster, timings, clock()).sample();
    const web = cluster.resolved.find((v) => v.spec.targetRef?.name === 'web');
    expect(web).toMatchObject({
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { namespace: 'shop' },
      spec: {
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      },
    });
    expect(cluster.resolved).toHaveLength(2);
  });

  it('summarizes a workload whose target is unsupported with no pods', async () => {
    const cluster = shopCluster();
    cluster.targets.delete('shop/Deployment/api');
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    expect(sampler.podNames('shop/Deployment/api')).toEqual([]);
    expect(sampler.summaries()[0]).toMatchObject({
      name: 'api',
      pods: 0,
      nativeEquivalentReplicas: null,
    });
    expect(cluster.errors).toEqual([]);
  });

  it('reports a target that fails to resolve, and samples the workload with no pods', async () => {
    const cluster = shopCluster();
    const failure = new Error('apps/v1 deployments: 503');
    cluster.targets.set('shop/Deployment/api', failure);
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    expect(cluster.errors).toEqual([{ what: 'target', error: failure }]);
    expect(sampler.summaries().map((s) => [s.name, s.pods])).toEqual([
      ['api', 0],
      ['web', 2],
    ]);
  });

  it('reads usage once per namespace, and reports a failed read while the sample still completes', async () => {
    const cluster = shopCluster();
    cluster.vpaList.push(vpa('blog', 'web-vpa', 'web'));
    cluster.targets.set('blog/Deployment/web', {
      selector: { matchLabels: { app: 'web' } },
    });
    const failure = new Error('metrics.k8s.io unavailable');
    cluster.usageByNamespace.set('shop', failure);
    cluster.usageByNamespace.set('blog', new Map([['web-9', used(70)]]));
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    expect([...cluster.usageCalls].sort()).toEqual(['blog', 'shop']);
    expect(cluster.errors).toEqual([{ what: 'usage', error: failure }]);
    expect(sampler.lastSampleMs()).toBeDefined();
    const byKey = new Map(
      sampler.summaries().map((s) => [`${s.namespace}/${s.name}`, s]),
    );
    expect(byKey.get('shop/web')).toMatchObject({
      pods: 2,
      usage: {},
      nativeEquivalentReplicas: null,
    });
    expect(byKey.get('blog/web')?.usage).toEqual(used(70));
  });

  it("records each sample in the workload's history, at the sample's time", async () => {
    // Both samples fall in one coarse step (960 s to 1,020 s): only the recent ones show.
    const sampler = fleetSampler(shopCluster(), timings, clock(960_000));
    await sampler.sample();
    await sampler.sample();
    const points = sampler.history('shop/Deployment/web')?.since(0) ?? [];
    // The clock is read once for the samples' time and once for lastSampleMs.
    expect(points.map((point) => point.timeMs)).toEqual([960_000, 990_000]);
    expect(sampler.lastSampleMs()).toBe(1_005_000);
    expect(points[0]?.values).toMatchObject({
      replicas: 2,
      native: 4,
      'app|cpu|request': 100,
      'app|cpu|target': 300,
      'app|cpu|usage': 100,
    });
  });

  it('drops the history of a workload nobody targets any more', async () => {
    const cluster = shopCluster();
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    expect(sampler.history('shop/Deployment/api')).toBeDefined();
    cluster.hpaList = cluster.hpaList.filter((h) => h.name !== 'api-hpa');
    await sampler.sample();
    expect(sampler.history('shop/Deployment/api')).toBeUndefined();
    expect(sampler.summaries().map((s) => s.name)).toEqual(['web']);
    expect(sampler.history('shop/Deployment/web')?.since(0)).toHaveLength(2);
  });

  it('forgets the pods of a workload nobody targets any more', async () => {
    const cluster = shopCluster();
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    cluster.hpaList = cluster.hpaList.filter((h) => h.name !== 'api-hpa');
    await sampler.sample();
    expect(sampler.podNames('shop/Deployment/api')).toEqual([]);
  });

  it('summarizes the pods matched now, and names every pod matched within the history window', async () => {
    const cluster = shopCluster();
    let nowMs = 1_000_000;
    const sampler = fleetSampler(cluster, timings, () => nowMs);
    await sampler.sample();
    cluster.podsByNamespace.set('shop', [
      pod('web-1', 'web'),
      pod('web-2', 'web', 200),
    ]);
    nowMs += timings.keepMs;
    await sampler.sample();
    // web-0 went at most keepMs ago: its events still belong to the timeline.
    expect(sampler.podNames('shop/Deployment/web')).toEqual([
      'web-0',
      'web-1',
      'web-2',
    ]);
    const web = sampler.summaries()[1];
    expect(web?.pods).toBe(2);
    expect(web?.current).toEqual({
      app: { cpuMillicores: 200, memoryBytes: 1000 },
    });
    nowMs += 1;
    await sampler.sample();
    expect(sampler.podNames('shop/Deployment/web')).toEqual(['web-1', 'web-2']);
  });

  it('reports a selector it cannot compile and still samples the other workloads', async () => {
    const cluster = shopCluster();
    cluster.targets.set('shop/Deployment/api', {
      selector: { matchLabels: { 'not a/valid/key': 'x' } },
    });
    const sampler = fleetSampler(cluster, timings, clock());
    await sampler.sample();
    expect(sampler.summaries().map((s) => s.name)).toEqual(['api', 'web']);
    expect(cluster.errors.map((e) => e.what)).toEqual(['target']);
  });
});

describe('fleetSampler on a large fleet', () => {
  it('samples a slice at a time, letting the event loop turn in between, and keeps every workload', async () => {
    const cluster = new FakeCluster();
    const names = Array.from({ length: 250 }, (_, i) => `w${i}`);
    cluster.hpaList = names.map((name) => hpa('shop', name, name));
    const sampler = fleetSampler(cluster, timings, clock());
    // Runs once each turn of the event loop until the sample ends: a sample made of
    // promises alone would end before its first run.
    let done = false;
    let turnsDuring = 0;
    const probe = () => {
      if (done) return;
      turnsDuring += 1;
      setImmediate(probe);
    };
    setImmediate(probe);
    await sampler.sample();
    done = true;
    expect(turnsDuring).toBe(2);
    expect(
      sampler
        .summaries()
        .map((summary) => summary.name)
        .sort(),
    ).toEqual([...names].sort());
  });
});
