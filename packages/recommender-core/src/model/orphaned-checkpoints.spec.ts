import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';
import { orphanedCheckpoints } from './orphaned-checkpoints.js';

const checkpoint = (
  namespace: string,
  vpa: string,
  container = 'app',
): VerticalPodAutoscalerCheckpoint => ({
  metadata: { namespace, name: `${vpa}-${container}` },
  spec: { vpaObjectName: vpa, containerName: container },
});

describe('orphanedCheckpoints', () => {
  it('selects the checkpoints of VPAs that no longer exist, in the right namespace', () => {
    const kept = checkpoint('shop', 'web');
    const gone = checkpoint('shop', 'old');
    const sameNameOtherNamespace = checkpoint('blog', 'web');
    expect(
      orphanedCheckpoints(
        [kept, gone, sameNameOtherNamespace],
        new Set(['shop/web']),
      ),
    ).toEqual([gone, sameNameOtherNamespace]);
  });

  it('leaves ignored namespaces alone', () => {
    expect(
      orphanedCheckpoints([checkpoint('infra', 'old')], new Set(), ['infra']),
    ).toEqual([]);
  });

  it('keeps everything while every VPA exists', () => {
    const all = [checkpoint('a', 'x', 'c1'), checkpoint('a', 'x', 'c2')];
    expect(orphanedCheckpoints(all, new Set(['a/x']))).toEqual([]);
  });
});
