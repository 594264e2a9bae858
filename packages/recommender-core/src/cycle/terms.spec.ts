import type { V1Pod } from '@kubernetes/client-node';
import { Registry } from '@tandem/telemetry';
import type { PodContainerUsage } from '@tandem/kube';
import {
  inMemoryVpaStore,
  type InMemoryVpaStore,
} from '../checkpoints/in-memory-vpa-store.js';
import { NS, vpaObject } from '../model/model.fixtures.js';
import { recommenderMetrics } from '../recommender-metrics.js';
import {
  type CycleContext,
  defaultCycleSettings,
  freshCycleState,
} from './cycle-context.js';
import { quietObservability } from './cycle.fixtures.js';
import { runCycle } from './cycle.js';
import { endTerm, startTerm } from './terms.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-25T00:00:00Z');
const LABELS = { app: 'web' };

function pod(name: string): V1Pod {
  return {
    metadata: { namespace: NS, name, labels: LABELS },
    spec: {
      containers: [
        { name: 'app', resources: { requests: { memory: '256Mi' } } },
      ],
    },
    status: { phase: 'Running' },
  };
}

const SETTINGS = defaultCycleSettings({ updateWorkers: 2 });

/** One replica: its own model, the shared store, usage `minute` by `minute`. */
function replica(store: InMemoryVpaStore, leading: { now: boolean }) {
  let usageTimeMs = T0;
  const registry = new Registry();
  const context: CycleContext = {
    settings: SETTINGS,
    inputs: {
      listVpas: store.listVpas,
      listPods: () => [pod('web-1'), pod('web-2')],
      allVpaKeys: () => new Set([`${NS}/web`]),
      resolveTarget: async () => ({ selector: { matchLabels: LABELS } }),
      loadMetrics: async () => {
        usageTimeMs += MINUTE;
        const usages: PodContainerUsage[] = ['web-1', 'web-2'].map((name) => ({
          namespace: NS,
          pod: name,
          container: 'app',
          timeMs: usageTimeMs,
          cpuMillicores: 300,
          memoryBytes: 300 * 1024 * 1024,
        }));
        return { usages, skipped: 0 };
      },
      takeOoms: () => [],
      clock: () => usageTimeMs,
      stillLeading: () => leading.now,
    },
    store,
    observability: quietObservability(recommenderMetrics(registry)),
    state: freshCycleState(SETTINGS, T0),
  };
  const cycle = () => runCycle(context, usageTimeMs + 1);
  const loadCheckpointsFromStore = async (term: CycleContext) => {
    for (const checkpoint of await store.listCheckpoints(undefined))
      term.state.model.loadCheckpoint(
        `${NS}/${checkpoint.spec?.vpaObjectName}`,
        checkpoint.spec?.containerName ?? '',
        checkpoint.status,
      );
  };
  return { context, cycle, registry, loadCheckpointsFromStore };
}

/** A metric's values, failing clearly when the registry lacks it. */
async function valuesOf(registry: Registry, name: string) {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (await metric.get()).values;
}

const samplesIn = (store: InMemoryVpaStore) =>
  store.listCheckpoints(undefined).then((checkpoints) => ({
    samples: checkpoints[0]?.status?.totalSamplesCount ?? 0,
    firstSampleStart: checkpoints[0]?.status?.firstSampleStart,
  }));

describe('leadership terms', () => {
  it("a successor's first checkpoint holds all the history the leader wrote, whenever it started", async () => {
    const store = inMemoryVpaStore([vpaObject('web')]);
    const leaderLeads = { now: true };
    const standbyLeads = { now: false };
    const leader = replica(store, leaderLeads);
    // The standby starts together with the leader, as a second replica does.
    const standby = replica(store, standbyLeads);
    await startTerm(leader.context, leader.loadCheckpointsFromStore);
    for (let cycle = 0; cycle < 4; cycle += 1) await leader.cycle();
    const written = await samplesIn(store);
    expect(written.samples).toBe(8);

    leaderLeads.now = false;
    endTerm(leader.context);
    expect(leader.context.state.model.aggregateCount).toBe(0);

    standbyLeads.now = true;
    await startTerm(standby.context, standby.loadCheckpointsFromStore);
    await standby.cycle();
    const rewritten = await samplesIn(store);
    expect(rewritten.firstSampleStart).toBe(written.firstSampleStart);
    expect(rewritten.samples).toBe(written.samples + 2);
  });

  it('writes nothing once the lease is lost, not even within the cycle under way', async () => {
    const store = inMemoryVpaStore([vpaObject('web')]);
    const leads = { now: true };
    const { context, cycle } = replica(store, leads);
    await startTerm(context, async () => undefined);
    await cycle();
    const before = { ...store.writes };
    expect(before.statuses).toBe(1);
    expect(before.checkpoints).toBe(1);

    leads.now = false;
    await cycle();
    expect(store.writes).toEqual(before);
  });

  it('writes no checkpoint once the lease is lost right after the status write of the cycle under way', async () => {
    const store = inMemoryVpaStore([vpaObject('web')]);
    const leads = { now: true };
    const { context, cycle } = replica(
      {
        ...store,
        writeStatus: async (...status) => {
          await store.writeStatus(...status);
          leads.now = false;
        },
      },
      leads,
    );
    await startTerm(context, async () => undefined);
    await cycle();
    expect(store.writes).toEqual({ statuses: 1, checkpoints: 0 });
  });
});

describe('the cycle metrics', () => {
  it('reports vpa_objects_count as upstream 1.8 does: api v1, an unset mode as Recreate, every combination zero-filled', async () => {
    const store = inMemoryVpaStore([vpaObject('web')]);
    const { context, cycle, registry } = replica(store, { now: true });
    await startTerm(context, async () => undefined);
    await cycle();
    const values = await valuesOf(
      registry,
      'vpa_recommender_vpa_objects_count',
    );
    // 6 modes × has recommendation × 3 API versions × matches pods × unsupported.
    expect(values).toHaveLength(6 * 2 * 3 * 2 * 2);
    expect(values.filter((value) => value.value > 0)).toEqual([
      {
        labels: {
          update_mode: 'Recreate',
          has_recommendation: 'true',
          api: 'v1',
          matches_pods: 'true',
          unsupported_config: 'false',
        },
        value: 1,
      },
    ]);
  });

  it("times upstream's steps, DeleteRemovedPods included, and counts where container resources were read", async () => {
    const store = inMemoryVpaStore([vpaObject('web')]);
    const { context, cycle, registry } = replica(store, { now: true });
    await startTerm(context, async () => undefined);
    await cycle();
    const latency = await valuesOf(
      registry,
      'vpa_recommender_execution_latency_seconds',
    );
    const steps = new Set(
      latency.map((value) => value.labels['step'] as string),
    );
    expect([...steps].sort()).toEqual(
      [
        'DeleteRemovedPods',
        'GarbageCollect',
        'LoadMetrics',
        'LoadPods',
        'LoadVPAs',
        'MaintainCheckpoints',
        'UpdateVPAs',
        'total',
      ].sort(),
    );
    const reads = await valuesOf(registry, 'vpa_resources_get_resources_count');
    expect(reads).toEqual([
      { labels: { source: 'Pod.Spec.Containers' }, value: 2 },
    ]);
  });
});
