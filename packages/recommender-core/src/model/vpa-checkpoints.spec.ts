import { ClusterModel } from './cluster-model.js';
import {
  DAY,
  feedSteadyUsage,
  HOUR,
  selectorFor,
  STEADY_DAY,
  T0,
  vpaObject,
  webModel,
} from './model.fixtures.js';
import { checkpointsForVpa } from './vpa-checkpoints.js';
import { computeVpaStatus } from './vpa-status.js';

describe('checkpointsForVpa', () => {
  it('names checkpoints <vpa>-<container> and stores status v3', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);

    const [checkpoint, ...others] = checkpointsForVpa(
      model,
      'shop/web',
      T0 + DAY,
    );
    expect(others).toEqual([]);
    expect(checkpoint).toMatchObject({
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscalerCheckpoint',
      metadata: { name: 'web-app', namespace: 'shop' },
      spec: { vpaObjectName: 'web', containerName: 'app' },
      status: {
        version: 'v3',
        lastUpdateTime: '2024-01-02T00:00:00Z',
        firstSampleStart: '2024-01-01T00:00:00Z',
        lastSampleStart: '2024-01-01T23:59:00Z',
        totalSamplesCount: 1440,
        memoryHistogram: { bucketWeights: { '26': 10000 }, totalWeight: 1 },
      },
    });
  });

  it('round-trips: loaded into a fresh model it gives the identical recommendation', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', STEADY_DAY);
    const now = T0 + DAY; // the memory window [T0, T0 + 24 h) has just closed
    const saved = checkpointsForVpa(model, 'shop/web', now);

    const restored = new ClusterModel();
    restored.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    for (const checkpoint of JSON.parse(
      JSON.stringify(saved),
    ) as typeof saved) {
      expect(
        restored.loadCheckpoint(
          'shop/web',
          checkpoint.spec?.containerName ?? '',
          checkpoint.status,
        ),
      ).toEqual({ ok: true });
    }

    const recommendation = (m: ClusterModel) =>
      computeVpaStatus(m, 'shop/web', { nowMs: now })?.recommendation;
    expect(recommendation(restored)).toEqual(recommendation(model));
    expect(
      recommendation(restored)?.containerRecommendations?.[0]?.target,
    ).toEqual({
      cpu: '587m',
      memory: '628694953',
    });
  });

  it('leaves out the peak of a memory window still open, without changing the model', () => {
    const model = webModel();
    feedSteadyUsage(model, 'web-1', 'app', { ...STEADY_DAY, minutes: 720 });
    const now = T0 + 12 * HOUR;
    const before = computeVpaStatus(model, 'shop/web', { nowMs: now });

    const [checkpoint] = checkpointsForVpa(model, 'shop/web', now);
    expect(checkpoint?.status?.memoryHistogram).toEqual({
      referenceTimestamp: '2024-01-02T00:00:00Z',
      bucketWeights: {},
      totalWeight: 0,
    });
    expect(checkpointsForVpa(model, 'shop/web', now)).toEqual([checkpoint]);
    expect(computeVpaStatus(model, 'shop/web', { nowMs: now })).toEqual(before);
  });

  it('includes mode-Off containers and loaded history, as upstream does', () => {
    const model = webModel(
      {},
      vpaObject('web', { policies: [{ containerName: 'app', mode: 'Off' }] }),
    );
    feedSteadyUsage(model, 'web-1', 'app', { ...STEADY_DAY, minutes: 5 });
    const [saved] = checkpointsForVpa(model, 'shop/web', T0 + DAY);
    model.loadCheckpoint('shop/web', 'sidecar', saved?.status);

    expect(
      checkpointsForVpa(model, 'shop/web', T0 + DAY).map(
        (c) => c.metadata?.name,
      ),
    ).toEqual(['web-app', 'web-sidecar']);
  });

  it('is empty while the VPA is fetching history', () => {
    const fetching = {
      ...vpaObject('web'),
      status: {
        conditions: [
          { type: 'FetchingHistory' as const, status: 'True' as const },
        ],
      },
    };
    const model = webModel({}, fetching);
    feedSteadyUsage(model, 'web-1', 'app', { ...STEADY_DAY, minutes: 5 });
    expect(checkpointsForVpa(model, 'shop/web', T0 + DAY)).toEqual([]);
  });

  it('is empty for a VPA the model does not hold', () => {
    expect(checkpointsForVpa(new ClusterModel(), 'shop/none', T0)).toEqual([]);
  });
});
