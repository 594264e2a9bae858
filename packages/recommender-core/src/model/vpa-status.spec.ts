import { ClusterModel } from './cluster-model.js';
import {
  DAY,
  feedSteadyUsage,
  MIB,
  MINUTE,
  NS,
  podSnapshot,
  selectorFor,
  STEADY_DAY,
  T0,
  vpaObject,
  webModel,
} from './model.fixtures.js';
import { TextInterner } from './status-sharing.js';
import { checkpointsForVpa } from './vpa-checkpoints.js';
import { computeVpaStatus } from './vpa-status.js';

const NOW = T0 + DAY;
const NOW_TEXT = '2024-01-02T00:00:00Z';

describe('computeVpaStatus', () => {
  it('gives vector 15 for a steady workload fed for 24 h', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    expect(computeVpaStatus(model, 'shop/web', { nowMs: NOW })).toEqual({
      recommendation: {
        containerRecommendations: [
          {
            containerName: 'app',
            target: { cpu: '587m', memory: '628694953' },
            lowerBound: { cpu: '585m', memory: '627438575' },
            upperBound: { cpu: '1174m', memory: '1257826803' },
            uncappedTarget: { cpu: '587m', memory: '628694953' },
          },
        ],
      },
      conditions: [
        {
          type: 'RecommendationProvided',
          status: 'True',
          lastTransitionTime: NOW_TEXT,
        },
      ],
    });
  });

  it('rounds an opted-in container up to whole cores with --cpu-integer-post-processor-enabled, before the policy caps it', () => {
    const policy = { containerName: 'app', maxAllowed: { cpu: '900m' } };
    const vpa = vpaObject('web', { policies: [policy] });
    const model = webModel(
      {},
      {
        ...vpa,
        metadata: {
          ...vpa.metadata,
          annotations: {
            'vpa-post-processor.kubernetes.io/app_integerCPU': 'true',
          },
        },
      },
    );
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);
    const recommendation = (integerCpuPostProcessor: boolean) =>
      computeVpaStatus(model, 'shop/web', {
        nowMs: NOW,
        integerCpuPostProcessor,
      })?.recommendation?.containerRecommendations?.[0];

    expect(recommendation(true)).toMatchObject({
      target: { cpu: '900m' },
      lowerBound: { cpu: '900m' },
      upperBound: { cpu: '900m' },
      uncappedTarget: { cpu: '1' },
    });
    // Off (the flag's default), the annotation alone changes nothing.
    expect(recommendation(false)).toMatchObject({
      target: { cpu: '587m' },
      lowerBound: { cpu: '585m' },
      uncappedTarget: { cpu: '587m' },
    });
  });

  it('raises memory to the per-pod minimum (vector 15 with 200 MiB)', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', {
      ...STEADY_DAY,
      memoryBytes: 200 * MIB,
    });

    const [app] =
      computeVpaStatus(model, 'shop/web', { nowMs: NOW })?.recommendation
        ?.containerRecommendations ?? [];
    expect(app?.target.memory).toBe('250Mi');
    expect(app?.lowerBound?.memory).toBe('250Mi');
    expect(app?.upperBound?.memory).toBe('496479408');
  });

  it('merges pods with other labels under the same VPA by container name', () => {
    const model = new ClusterModel();
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    model.upsertPod(podSnapshot('web-a', { app: 'web', track: 'a' }), T0);
    model.upsertPod(podSnapshot('web-b', { app: 'web', track: 'b' }), T0);
    feedSteadyUsage(model, 'web-a', 'app', { ...STEADY_DAY, minutes: 720 });
    feedSteadyUsage(
      model,
      'web-b',
      'app',
      { ...STEADY_DAY, minutes: 720 },
      T0 + 720 * MINUTE,
    );

    expect(model.aggregateCount).toBe(2);
    const merged = model.aggregatesForVpa('shop/web');
    expect([...merged.keys()]).toEqual(['app']);
    expect(merged.get('app')?.totalSamplesCount).toBe(1440);
    expect(merged.get('app')?.firstSampleStartMs).toBe(T0);
    expect(merged.get('app')?.lastSampleStartMs).toBe(T0 + 1439 * MINUTE);
    const status = computeVpaStatus(model, 'shop/web', { nowMs: NOW });
    expect(
      status?.recommendation?.containerRecommendations?.[0]?.target.cpu,
    ).toBe('587m');
  });

  it('drops a mode-Off container and splits the per-pod minimum over the rest (vector 14)', () => {
    const tiny = { cpuMillicores: 1, memoryBytes: 1_000_000, minutes: 10 };
    const statusWith = (policies: Parameters<typeof vpaObject>[1]) => {
      const model = new ClusterModel();
      model.upsertVpa(vpaObject('web', policies), selectorFor({ app: 'web' }));
      model.upsertPod(podSnapshot('web-1', { app: 'web' }, ['app', 'log']), T0);
      feedSteadyUsage(model, 'web-1', 'app', tiny);
      feedSteadyUsage(model, 'web-1', 'log', tiny);
      return computeVpaStatus(model, 'shop/web', { nowMs: NOW })?.recommendation
        ?.containerRecommendations;
    };

    const both = statusWith({});
    expect(both?.map((c) => [c.containerName, c.target])).toEqual([
      ['app', { cpu: '12m', memory: '125Mi' }],
      ['log', { cpu: '12m', memory: '125Mi' }],
    ]);
    const logOff = statusWith({
      policies: [{ containerName: 'log', mode: 'Off' }],
    });
    expect(logOff?.map((c) => [c.containerName, c.target])).toEqual([
      ['app', { cpu: '25m', memory: '250Mi' }],
    ]);
  });

  it('caps to minAllowed and maxAllowed and keeps the uncapped target', () => {
    const model = webModel(
      {},
      vpaObject('web', {
        policies: [
          {
            containerName: '*',
            minAllowed: { cpu: '1' },
            maxAllowed: { memory: '500Mi' },
          },
        ],
      }),
    );
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    expect(
      computeVpaStatus(model, 'shop/web', { nowMs: NOW })?.recommendation
        ?.containerRecommendations,
    ).toEqual([
      {
        containerName: 'app',
        target: { cpu: '1', memory: '500Mi' },
        lowerBound: { cpu: '1', memory: '500Mi' },
        upperBound: { cpu: '1174m', memory: '500Mi' },
        uncappedTarget: { cpu: '587m', memory: '628694953' },
      },
    ]);
  });

  it('applies the global maximum where the policy sets none', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    const [app] =
      computeVpaStatus(model, 'shop/web', {
        nowMs: NOW,
        globalMaxAllowed: { cpu: '1', memory: '1Gi' },
      })?.recommendation?.containerRecommendations ?? [];
    expect(app?.upperBound).toEqual({ cpu: '1', memory: '1Gi' });
    expect(app?.target).toEqual({ cpu: '587m', memory: '628694953' });
  });

  it('keeps only the controlled resources', () => {
    const model = webModel(
      {},
      vpaObject('web', {
        policies: [{ containerName: 'app', controlledResources: ['memory'] }],
      }),
    );
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    const [app] =
      computeVpaStatus(model, 'shop/web', { nowMs: NOW })?.recommendation
        ?.containerRecommendations ?? [];
    expect(app?.target).toEqual({ memory: '628694953' });
    expect(app?.uncappedTarget).toEqual({ memory: '628694953' });
  });

  it('reports NoPodsMatched when the selector matches no pod', () => {
    const model = webModel();
    model.upsertVpa(
      vpaObject('idle', { generation: 3 }),
      selectorFor({ app: 'idle' }),
    );

    expect(computeVpaStatus(model, 'shop/idle', { nowMs: NOW })).toEqual({
      recommendation: {},
      conditions: [
        {
          type: 'NoPodsMatched',
          status: 'True',
          lastTransitionTime: NOW_TEXT,
          reason: 'NoPodsMatched',
          message: 'No pods match this VPA object',
        },
        {
          type: 'RecommendationProvided',
          status: 'False',
          lastTransitionTime: NOW_TEXT,
          reason: 'NoPodsMatched',
          message: 'No pods match this VPA object',
        },
      ],
      observedGeneration: 3,
    });
  });

  it('reports ConfigUnsupported for an unresolvable target or an invalid selector, leaving other VPAs alone', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);
    model.upsertVpa(vpaObject('orphan'), {
      unsupported:
        'Cannot read targetRef. Reason: deployments.apps "orphan" not found',
    });
    model.upsertVpa(vpaObject('bad'), {
      selector: {
        matchExpressions: [{ key: 'app', operator: 'In', values: [] }],
      },
    });

    const conditionOf = (vpa: string) =>
      computeVpaStatus(model, `shop/${vpa}`, { nowMs: NOW })?.conditions?.find(
        (c) => c.type === 'ConfigUnsupported',
      );
    expect(conditionOf('orphan')).toEqual({
      type: 'ConfigUnsupported',
      status: 'True',
      lastTransitionTime: NOW_TEXT,
      message:
        'Cannot read targetRef. Reason: deployments.apps "orphan" not found',
    });
    expect(conditionOf('bad')?.message).toBe(
      'Cannot read targetRef. Reason: invalid label selector: matchExpressions[0].values: must be non-empty for operator In',
    );
    expect(
      computeVpaStatus(model, 'shop/bad', { nowMs: NOW })?.recommendation,
    ).toEqual({});
    expect(conditionOf('web')).toBeUndefined();
    expect(
      computeVpaStatus(model, 'shop/web', { nowMs: NOW })?.recommendation
        ?.containerRecommendations,
    ).toHaveLength(1);
  });

  it('reports ConfigUnsupported for a policy quantity that does not parse', () => {
    const model = webModel(
      {},
      vpaObject('web', {
        policies: [{ containerName: 'app', minAllowed: { cpu: 'lots' } }],
      }),
    );
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    const status = computeVpaStatus(model, 'shop/web', { nowMs: NOW });
    expect(status?.recommendation).toEqual({});
    expect(status?.conditions).toEqual([
      {
        type: 'ConfigUnsupported',
        status: 'True',
        lastTransitionTime: NOW_TEXT,
        message: expect.stringMatching(
          /^Invalid resourcePolicy for container "app": /,
        ),
      },
      {
        type: 'RecommendationProvided',
        status: 'False',
        lastTransitionTime: NOW_TEXT,
      },
    ]);
  });

  it('still recommends from checkpointed history when the target cannot be resolved, as upstream', () => {
    const source = webModel();
    feedSteadyUsage(source, 'web-1', 'app', STEADY_DAY);
    const [saved] = checkpointsForVpa(source, 'shop/web', NOW);
    const model = new ClusterModel();
    model.upsertVpa(vpaObject('web'), { unsupported: 'Cannot read targetRef' });
    model.loadCheckpoint('shop/web', 'app', saved?.status);

    const status = computeVpaStatus(model, 'shop/web', { nowMs: NOW });
    expect(
      status?.recommendation?.containerRecommendations?.[0]?.target,
    ).toEqual({ cpu: '587m', memory: '628694953' });
    expect(status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['ConfigUnsupported', 'True'],
      ['NoPodsMatched', 'True'],
      ['RecommendationProvided', 'True'],
    ]);
  });

  it('keeps lastTransitionTime while a condition keeps its status, and drops ConfigDeprecated', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);
    const first = computeVpaStatus(model, 'shop/web', { nowMs: NOW });
    const observed = {
      ...vpaObject('web'),
      status: {
        ...first,
        conditions: [
          ...(first?.conditions ?? []),
          { type: 'ConfigDeprecated' as const, status: 'True' as const },
          {
            type: 'LowConfidence' as const,
            status: 'False' as const,
            lastTransitionTime: '2023-12-01T00:00:00Z',
          },
        ],
      },
    };
    model.upsertVpa(observed, selectorFor({ app: 'web' }));
    model.removePodsNotIn([]);

    const later = computeVpaStatus(model, 'shop/web', { nowMs: NOW + DAY });
    expect(later?.conditions).toEqual([
      {
        type: 'LowConfidence',
        status: 'False',
        lastTransitionTime: '2023-12-01T00:00:00Z',
      },
      {
        type: 'NoPodsMatched',
        status: 'True',
        lastTransitionTime: '2024-01-03T00:00:00Z',
        reason: 'NoPodsMatched',
        message: 'No pods match this VPA object',
      },
      // Still recommended from the aggregate the pod left behind: status and time unchanged.
      {
        type: 'RecommendationProvided',
        status: 'True',
        lastTransitionTime: NOW_TEXT,
      },
    ]);
  });

  it('given the cycle texts, writes the same JSON and shares what the observed status already holds', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);
    const first = computeVpaStatus(model, 'shop/web', { nowMs: NOW });
    model.upsertVpa(
      { ...vpaObject('web'), status: first },
      selectorFor({ app: 'web' }),
    );
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY, NOW);
    const options = { nowMs: NOW + DAY };
    const fresh = computeVpaStatus(model, 'shop/web', options);
    const shared = computeVpaStatus(model, 'shop/web', {
      ...options,
      texts: new TextInterner(),
    });

    expect(JSON.stringify(shared)).toBe(JSON.stringify(fresh));
    expect(shared?.conditions).toBe(first?.conditions);
    const [was] = first?.recommendation?.containerRecommendations ?? [];
    const [now] = shared?.recommendation?.containerRecommendations ?? [];
    expect(now?.target).toEqual(was?.target);
    expect(now?.target).toBe(was?.target);
  });

  it('is undefined for a VPA the model does not hold', () => {
    expect(
      computeVpaStatus(new ClusterModel(), `${NS}/none`, { nowMs: NOW }),
    ).toBeUndefined();
  });
});
