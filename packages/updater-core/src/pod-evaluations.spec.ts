import type { UpdaterPod } from '@tandem/update-decisions';
import type { LimitRange, VerticalPodAutoscaler } from '@tandem/vpa-api';
import { PodEvaluations } from './pod-evaluations.js';

function vpa(
  resourceVersion: string | undefined,
  cpu: string,
): VerticalPodAutoscaler {
  return {
    metadata: { namespace: 'demo', name: 'web', resourceVersion },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      updatePolicy: { updateMode: 'Recreate' },
    },
    status: {
      recommendation: {
        containerRecommendations: [
          {
            containerName: 'app',
            target: { cpu },
            lowerBound: { cpu },
            upperBound: { cpu },
          },
        ],
      },
    },
  };
}

function pod(name: string, cpu: string): UpdaterPod {
  return {
    metadata: { namespace: 'demo', name, uid: `uid-${name}` },
    spec: {
      nodeName: 'node-a',
      containers: [{ name: 'app', resources: { requests: { cpu } } }],
    },
    status: { phase: 'Running' },
  };
}

const limitRanges: LimitRange[] = [];

describe('PodEvaluations', () => {
  it('shares one evaluation between replicas with the same resources', () => {
    const evaluations = new PodEvaluations();
    const first = evaluations.evaluate(
      pod('a', '100m'),
      vpa('1', '500m'),
      limitRanges,
    );
    expect(
      evaluations.evaluate(pod('b', '100m'), vpa('1', '500m'), limitRanges),
    ).toBe(first);
    expect(first.assessment.priority.outsideRange).toBe(true);
    const other = evaluations.evaluate(
      pod('c', '500m'),
      vpa('1', '500m'),
      limitRanges,
    );
    expect(other).not.toBe(first);
    expect(other.assessment.priority.outsideRange).toBe(false);
  });

  it('works out afresh when the VPA changes, and never keeps objects without a version', () => {
    const evaluations = new PodEvaluations();
    const before = evaluations.evaluate(
      pod('a', '100m'),
      vpa('1', '500m'),
      limitRanges,
    );
    const after = evaluations.evaluate(
      pod('a', '100m'),
      vpa('2', '100m'),
      limitRanges,
    );
    expect(after).not.toBe(before);
    expect(after.assessment.priority.outsideRange).toBe(false);
    const unversioned = vpa(undefined, '500m');
    expect(
      evaluations.evaluate(pod('a', '100m'), unversioned, limitRanges),
    ).not.toBe(
      evaluations.evaluate(pod('a', '100m'), unversioned, limitRanges),
    );
  });

  it('finds an unchanged pod object again, and not once its VPA changed', () => {
    const evaluations = new PodEvaluations();
    const same = pod('a', '100m');
    const first = evaluations.evaluate(same, vpa('1', '500m'), limitRanges);
    evaluations.endCycle();
    evaluations.endCycle();
    expect(evaluations.evaluate(same, vpa('1', '500m'), limitRanges)).toBe(
      first,
    );
    const changed = evaluations.evaluate(same, vpa('2', '100m'), limitRanges);
    expect(changed).not.toBe(first);
    expect(changed.assessment.priority.outsideRange).toBe(false);
  });

  it('shares the new evaluation between an unchanged pod object and its replicas once the VPA changed', () => {
    const evaluations = new PodEvaluations();
    const same = pod('a', '100m');
    evaluations.evaluate(same, vpa('1', '500m'), limitRanges);
    const renewed = evaluations.evaluate(same, vpa('2', '100m'), limitRanges);
    expect(
      evaluations.evaluate(pod('b', '100m'), vpa('2', '100m'), limitRanges),
    ).toBe(renewed);
    expect(
      evaluations.evaluate(pod('c', '500m'), vpa('2', '100m'), limitRanges),
    ).not.toBe(renewed);
  });

  it('keeps what the last cycle used and forgets what a whole cycle did not', () => {
    const evaluations = new PodEvaluations();
    const kept = evaluations.evaluate(
      pod('a', '100m'),
      vpa('1', '500m'),
      limitRanges,
    );
    evaluations.evaluate(pod('b', '200m'), vpa('1', '500m'), limitRanges);
    evaluations.endCycle();
    expect(
      evaluations.evaluate(pod('a', '100m'), vpa('1', '500m'), limitRanges),
    ).toBe(kept);
    evaluations.endCycle();
    expect(evaluations.size).toBe(1);
  });
});
