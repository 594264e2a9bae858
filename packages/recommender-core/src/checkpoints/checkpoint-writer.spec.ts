import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';
import { writeCheckpoints } from './checkpoint-writer.js';
import { ClusterModel } from '../model/index.js';
import {
  feedSteadyUsage,
  podSnapshot,
  selectorFor,
  T0,
  vpaObject,
} from '../model/model.fixtures.js';

/** VPAs a, b, c, each selecting its own pod with one container `app` and some usage. */
function threeVpaModel(): ClusterModel {
  const model = new ClusterModel();
  for (const name of ['a', 'b', 'c']) {
    model.upsertVpa(vpaObject(name), selectorFor({ app: name }));
    model.upsertPod(podSnapshot(`${name}-1`, { app: name }), T0);
    feedSteadyUsage(model, `${name}-1`, 'app', {
      cpuMillicores: 100,
      memoryBytes: 1e8,
      minutes: 3,
    });
  }
  return model;
}

function recorder(failFor: ReadonlySet<string> = new Set()) {
  const written: string[] = [];
  return {
    written,
    write: async (checkpoint: VerticalPodAutoscalerCheckpoint) => {
      const name = checkpoint.metadata?.name ?? '';
      if (failFor.has(name)) throw new Error(`conflict on ${name}`);
      written.push(name);
    },
  };
}

const never = () => false;

describe('writeCheckpoints', () => {
  it('writes every VPA, never-written ones first, and remembers when', async () => {
    const model = threeVpaModel();
    const lastWrittenMs = new Map([['shop/a', T0 - 1000]]);
    const { written, write } = recorder();
    const result = await writeCheckpoints({
      model,
      nowMs: T0,
      lastWrittenMs,
      workers: 1,
      deadlinePassed: never,
      mayWrite: () => true,
      write,
      onWriteError: () => undefined,
    });
    expect(written).toEqual(['b-app', 'c-app', 'a-app']);
    expect(result).toEqual({ writes: 3, vpasLeft: 0 });
    expect([...lastWrittenMs]).toEqual([
      ['shop/a', T0],
      ['shop/b', T0],
      ['shop/c', T0],
    ]);
  });

  it('stops at the deadline after the first VPA, and the rest go first next time', async () => {
    const model = threeVpaModel();
    const lastWrittenMs = new Map<string, number>();
    const first = recorder();
    // The deadline has passed before anything was written: one VPA is still written.
    const cut = await writeCheckpoints({
      model,
      nowMs: T0,
      lastWrittenMs,
      workers: 1,
      deadlinePassed: () => true,
      mayWrite: () => true,
      write: first.write,
      onWriteError: () => undefined,
    });
    expect(cut).toEqual({ writes: 1, vpasLeft: 2 });
    expect(first.written).toEqual(['a-app']);

    const next = recorder();
    await writeCheckpoints({
      model,
      nowMs: T0 + 60_000,
      lastWrittenMs,
      workers: 1,
      deadlinePassed: never,
      mayWrite: () => true,
      write: next.write,
      onWriteError: () => undefined,
    });
    expect(next.written).toEqual(['b-app', 'c-app', 'a-app']);
  });

  it('starts no write once the lease is lost, not even the first one a deadline would let through', async () => {
    const { written, write } = recorder();
    let leading = true;
    const result = await writeCheckpoints({
      model: threeVpaModel(),
      nowMs: T0,
      lastWrittenMs: new Map(),
      workers: 1,
      deadlinePassed: never,
      mayWrite: () => leading,
      write: async (checkpoint) => {
        await write(checkpoint);
        leading = false;
      },
      onWriteError: () => undefined,
    });
    expect(written).toEqual(['a-app']);
    expect(result).toEqual({ writes: 1, vpasLeft: 2 });
  });

  it('lets each of its workers write one VPA past the deadline', async () => {
    const { written, write } = recorder();
    const result = await writeCheckpoints({
      model: threeVpaModel(),
      nowMs: T0,
      lastWrittenMs: new Map(),
      workers: 2,
      deadlinePassed: () => true,
      mayWrite: () => true,
      write,
      onWriteError: () => undefined,
    });
    expect(written).toEqual(['a-app', 'b-app']);
    expect(result).toEqual({ writes: 2, vpasLeft: 1 });
  });

  it('reports a failed write, goes on, and keeps that VPA first in line', async () => {
    const model = threeVpaModel();
    const lastWrittenMs = new Map<string, number>();
    const errors: string[] = [];
    const { written, write } = recorder(new Set(['b-app']));
    const result = await writeCheckpoints({
      model,
      nowMs: T0,
      lastWrittenMs,
      workers: 1,
      deadlinePassed: never,
      mayWrite: () => true,
      write,
      onWriteError: (checkpoint, vpaKey, error) =>
        errors.push(
          `${vpaKey} ${checkpoint.metadata?.name}: ${(error as Error).message}`,
        ),
    });
    expect(written).toEqual(['a-app', 'c-app']);
    expect(errors).toEqual(['shop/b b-app: conflict on b-app']);
    expect(result.writes).toBe(2);
    expect(lastWrittenMs.has('shop/b')).toBe(false);
  });

  it('forgets VPAs that left the model', async () => {
    const model = threeVpaModel();
    model.removeVpasNotIn(['shop/a']);
    const lastWrittenMs = new Map([['shop/gone', T0]]);
    await writeCheckpoints({
      model,
      nowMs: T0,
      lastWrittenMs,
      workers: 1,
      deadlinePassed: never,
      mayWrite: () => true,
      write: recorder().write,
      onWriteError: () => undefined,
    });
    expect([...lastWrittenMs.keys()]).toEqual(['shop/a']);
  });
});
