import fc from 'fast-check';
import { SampleRing } from './sample-ring.js';
import { WorkloadHistory } from './workload-history.js';

describe('SampleRing', () => {
  it('keeps the last samples in order, and NaN-free values each sample had', () => {
    const ring = new SampleRing(3);
    ring.push(1, { a: 1 });
    ring.push(2, { a: 2, b: 20 });
    ring.push(3, { b: 30 });
    ring.push(4, { a: 4 });
    expect(ring.since(0)).toEqual([
      { timeMs: 2, values: { a: 2, b: 20 } },
      { timeMs: 3, values: { b: 30 } },
      { timeMs: 4, values: { a: 4 } },
    ]);
    expect(ring.since(3).map((sample) => sample.timeMs)).toEqual([3, 4]);
  });

  it('holds, for any pushes, the last capacity of them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 60 }),
        (capacity, values) => {
          const ring = new SampleRing(capacity);
          values.forEach((value, i) => ring.push(i, { v: value }));
          const kept = ring.since(-Infinity);
          const expected = values.slice(-capacity);
          return (
            kept.length === expected.length &&
            kept.every((sample, i) => sample.values['v'] === expected[i])
          );
        },
      ),
    );
  });
});

describe('WorkloadHistory', () => {
  const timings = {
    sampleIntervalMs: 10,
    recentMs: 50,
    coarseStepMs: 100,
    keepMs: 1000,
  };

  it('answers recent samples one by one and older ones as the mean of their step', () => {
    const history = new WorkloadHistory(timings);
    for (let t = 0; t < 300; t += 10)
      history.record(t, { replicas: t < 100 ? 2 : 4 });
    const points = history.since(0);
    // Steps [0,100) and [100,200) closed; [200,300) still open; the recent ring holds the
    // last 6 samples (250..290).
    expect(points.slice(0, 2)).toEqual([
      { timeMs: 50, values: { replicas: 2 } },
      { timeMs: 150, values: { replicas: 4 } },
    ]);
    expect(points.slice(2).map((point) => point.timeMs)).toEqual([
      240, 250, 260, 270, 280, 290,
    ]);
  });

  it('forgets what is older than keepMs', () => {
    const history = new WorkloadHistory(timings);
    for (let t = 0; t < 3000; t += 10) history.record(t, { v: t });
    const first = history.since(0)[0];
    expect(first?.timeMs).toBeGreaterThanOrEqual(3000 - 1000 - 100);
  });

  it('holds a day of 15 s samples of 20 values in a bounded size', () => {
    const history = new WorkloadHistory();
    const values = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`v${i}`, i]),
    );
    for (let t = 0; t < 2 * 24 * 3600_000; t += 15_000)
      history.record(t, values);
    // 241 recent + 288 coarse slots, 20 float32 columns and a float64 time each.
    expect(history.bytes()).toBe((241 + 288) * (8 + 20 * 4));
  });
});
