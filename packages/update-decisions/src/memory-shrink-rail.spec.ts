import fc from 'fast-check';
import { parseMemoryBytes } from '@tandem/vpa-api';
import {
  describeMemoryLimitKept,
  guardMemoryShrink,
} from './memory-shrink-rail.js';
import { inPlaceResizePatch } from './resize-patch.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';

const MI = 1024 * 1024;

/** Container `app` at 1 CPU / 1Gi, limits 2 CPU / 1Gi, resized to `memory` (cpu 500m). */
function resize(memory: string, limits = { cpu: '2', memory: '1Gi' }) {
  const pod = podWith([container('app', { cpu: '1', memory: '1Gi' }, limits)]);
  const vpa = vpaWith([entry('app', { cpu: '500m', memory })], {
    mode: 'InPlaceOrRecreate',
  });
  return { pod, patch: inPlaceResizePatch(pod, vpa) };
}

const paths = (patch: { path: string; value: unknown }[]) =>
  patch.map(({ path, value }) => `${path}=${JSON.stringify(value)}`);

describe('guardMemoryShrink (kubernetes/kubernetes#135670)', () => {
  it('keeps a memory limit that would fall under the working set plus headroom, and applies the rest', () => {
    const { pod, patch } = resize('256Mi');
    const guarded = guardMemoryShrink(
      pod,
      patch,
      new Map([['app', 400 * MI]]),
      0.15,
    );
    expect(paths(guarded.patch)).toEqual([
      '/spec/containers/0/resources/requests/cpu="500m"',
      '/spec/containers/0/resources/requests/memory="256Mi"',
      '/spec/containers/0/resources/limits/cpu="1"',
    ]);
    expect(guarded.kept).toEqual([
      {
        container: 'app',
        reason: 'below-working-set',
        currentLimit: '1Gi',
        proposedLimit: '256Mi',
        workingSetBytes: 400 * MI,
        floorBytes: 460 * MI,
      },
    ]);
    expect(guarded.kept.map(describeMemoryLimitKept)).toEqual([
      'memory limit of container app kept at 1Gi instead of 256Mi: below its working set 400Mi plus headroom (at least 460Mi)',
    ]);
  });

  it('lets a shrink through that stays at or above the floor', () => {
    const { pod, patch } = resize('460Mi');
    expect(
      guardMemoryShrink(pod, patch, new Map([['app', 400 * MI]]), 0.15),
    ).toEqual({ patch, kept: [] });
  });

  it('never shrinks a limit when the working set is unknown, and says so', () => {
    const { pod, patch } = resize('512Mi');
    const guarded = guardMemoryShrink(pod, patch, undefined, 0.15);
    expect(guarded.kept.map(({ reason }) => reason)).toEqual([
      'working-set-unknown',
    ]);
    expect(guarded.kept.map(describeMemoryLimitKept)).toEqual([
      'memory limit of container app kept at 1Gi instead of 512Mi: its working set is unknown (no metrics), and a shrink under it is an OOM kill',
    ]);
    expect(
      guardMemoryShrink(pod, patch, new Map([['other', 1]]), 0.15).kept,
    ).toHaveLength(1);
  });

  it('lets a raised limit through without any usage', () => {
    const { pod, patch } = resize('2Gi');
    expect(guardMemoryShrink(pod, patch, undefined, 0.15)).toEqual({
      patch,
      kept: [],
    });
  });

  it('treats a limit set where there was none as a shrink from no ceiling, and drops the empty limits map', () => {
    const pod = podWith([container('app', { memory: '1Gi' })]);
    const patch = [
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/requests/memory',
        value: '256Mi',
      },
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/limits',
        value: {},
      },
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/limits/memory',
        value: '256Mi',
      },
    ];
    const guarded = guardMemoryShrink(
      pod,
      patch,
      new Map([['app', 300 * MI]]),
      0,
    );
    expect(paths(guarded.patch)).toEqual([
      '/spec/containers/0/resources/requests/memory="256Mi"',
    ]);
    expect(guarded.kept[0]).toMatchObject({
      reason: 'below-working-set',
      currentLimit: undefined,
    });
  });

  it('takes out a memory request raised above the kept limit, never a lower one', () => {
    const pod = podWith([
      container('app', { memory: '100Mi' }, { memory: '300Mi' }),
    ]);
    const patch = [
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/requests/memory',
        value: '400Mi',
      },
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/limits/memory',
        value: '200Mi',
      },
    ];
    expect(
      guardMemoryShrink(pod, patch, new Map([['app', 250 * MI]]), 0).patch,
    ).toEqual([]);
  });

  it('keeps a limit it cannot read rather than guess, and never throws', () => {
    const pod = podWith([
      container('app', { memory: '1Gi' }, { memory: 'lots' }),
    ]);
    const patch = [
      {
        op: 'add' as const,
        path: '/spec/containers/0/resources/limits/memory',
        value: '256Mi',
      },
    ];
    expect(
      guardMemoryShrink(pod, patch, new Map([['app', 1]]), 0.15).kept[0]
        ?.reason,
    ).toBe('limit-unreadable');
  });

  it('never leaves a memory limit under working set × (1 + headroom) lower than it was', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4096 }),
        fc.integer({ min: 1, max: 4096 }),
        fc.option(fc.integer({ min: 0, max: 4096 }), { nil: undefined }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (currentMi, proposedMi, workingSetMi, headroom) => {
          const { pod, patch } = resize(`${proposedMi}Mi`, {
            cpu: '2',
            memory: `${currentMi}Mi`,
          });
          const guarded = guardMemoryShrink(
            pod,
            patch,
            workingSetMi === undefined
              ? undefined
              : new Map([['app', workingSetMi * MI]]),
            headroom,
          );
          const limit = guarded.patch.find((operation) =>
            operation.path.endsWith('/limits/memory'),
          );
          if (limit === undefined) return true;
          const bytes = parseMemoryBytes(String(limit.value));
          return (
            bytes >= currentMi * MI ||
            (workingSetMi !== undefined &&
              bytes >= Math.ceil(workingSetMi * MI * (1 + headroom)))
          );
        },
      ),
    );
  });
});
