import {
  CheckpointError,
  CPU_HISTOGRAM_OPTIONS,
  GO_ZERO_TIME_MS,
  MEMORY_HISTOGRAM_OPTIONS,
} from '@tandem/histogram';
import { AggregateContainerState } from './aggregate-container-state.js';
import { DEFAULT_AGGREGATION_CONFIG } from './aggregation-config.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T = Date.parse('2024-05-01T10:00:00Z');

describe('AggregateContainerState', () => {
  it('starts empty with "never" as sample times', () => {
    const state = new AggregateContainerState(T);
    expect(state.isEmpty()).toBe(true);
    expect(state.totalSamplesCount).toBe(0);
    expect(state.firstSampleStartMs).toBe(GO_ZERO_TIME_MS);
    expect(state.lastSampleStartMs).toBe(GO_ZERO_TIME_MS);
    expect(state.config).toBe(DEFAULT_AGGREGATION_CONFIG);
    expect(state.cpuHistogram.options).toBe(CPU_HISTOGRAM_OPTIONS);
    expect(state.memoryHistogram.options).toBe(MEMORY_HISTOGRAM_OPTIONS);
  });

  it('adds CPU samples in cores with the constant weight 0.1, tracking the timeline', () => {
    const state = new AggregateContainerState(T);
    state.addCpuSample(T + 2 * MINUTE, 500);
    state.addCpuSample(T, 1000);
    state.addCpuSample(T + MINUTE, 2000);
    expect(state.totalSamplesCount).toBe(3);
    expect(state.firstSampleStartMs).toBe(T);
    expect(state.lastSampleStartMs).toBe(T + 2 * MINUTE);
    // Same half-life period, so the three weights only differ by their decay factors.
    expect(state.cpuHistogram.percentile(0)).toBe(0.5111345375888706);
    expect(state.cpuHistogram.percentile(1)).toBe(2.093479957150735);
    expect(state.cpuHistogram.totalWeight).toBeCloseTo(0.3 * 2 ** (10 / 24), 3);
  });

  it('files memory peaks with weight 1 and withdraws them', () => {
    const state = new AggregateContainerState(T);
    state.addMemoryPeak(T + DAY, 500 * 1048576);
    state.addMemoryPeak(T + DAY, 200 * 1048576);
    state.subtractMemoryPeak(T + DAY, 500 * 1048576);
    expect(state.memoryHistogram.percentile(1)).toBe(215785635.88227338);
    expect(state.totalSamplesCount).toBe(0);
  });

  it('merges histograms, the earliest first sample, the latest last sample and the counts', () => {
    const a = new AggregateContainerState(T);
    const b = new AggregateContainerState(T);
    const never = new AggregateContainerState(T);
    a.addCpuSample(T + 10 * MINUTE, 100);
    b.addCpuSample(T + 5 * MINUTE, 300);
    b.addCpuSample(T + 20 * MINUTE, 300);
    a.merge(never);
    expect(a.firstSampleStartMs).toBe(T + 10 * MINUTE);
    a.merge(b);
    expect(a.firstSampleStartMs).toBe(T + 5 * MINUTE);
    expect(a.lastSampleStartMs).toBe(T + 20 * MINUTE);
    expect(a.totalSamplesCount).toBe(3);
    never.merge(a);
    expect(never.firstSampleStartMs).toBe(T + 5 * MINUTE);
  });

  describe('expiry (golden vector 24)', () => {
    it('expires 8 days after the last CPU sample', () => {
      const state = new AggregateContainerState(T - DAY);
      state.addCpuSample(T, 100);
      expect(state.isExpired(T + 7 * DAY)).toBe(false);
      expect(state.isExpired(T + 8 * DAY - 1)).toBe(false);
      expect(state.isExpired(T + 8 * DAY)).toBe(true);
    });

    it('expires 8 days after creation while it has no CPU sample', () => {
      const state = new AggregateContainerState(T);
      state.addMemoryPeak(T + DAY, 1e9);
      expect(state.isExpired(T + 7 * DAY)).toBe(false);
      expect(state.isExpired(T + 8 * DAY)).toBe(true);
    });

    it('follows the configured window', () => {
      const state = new AggregateContainerState(T, {
        ...DEFAULT_AGGREGATION_CONFIG,
        memoryAggregationIntervalMs: 60 * MINUTE,
        memoryAggregationIntervalCount: 2,
      });
      expect(state.isExpired(T + 119 * MINUTE)).toBe(false);
      expect(state.isExpired(T + 120 * MINUTE)).toBe(true);
    });
  });

  describe('checkpoints', () => {
    function sampled(): AggregateContainerState {
      const state = new AggregateContainerState(T);
      state.addCpuSample(Date.parse('2024-01-01T12:00:00Z'), 1000);
      state.addCpuSample(Date.parse('2024-01-02T12:00:00Z'), 2000);
      state.addMemoryPeak(Date.parse('2024-01-02T12:00:00Z'), 524288000);
      return state;
    }

    it('saves the upstream status shape', () => {
      const status = sampled().saveCheckpoint(
        Date.parse('2024-01-02T12:34:56.789Z'),
      );
      expect(status).toEqual({
        lastUpdateTime: '2024-01-02T12:34:56Z',
        version: 'v3',
        cpuHistogram: {
          referenceTimestamp: '2024-01-02T00:00:00Z',
          bucketWeights: { '36': 5000, '49': 10000 },
          totalWeight: 0.21213203435596426,
        },
        // Its only peak is at noon: half-way, so its reference rounds up to the next midnight.
        memoryHistogram: {
          referenceTimestamp: '2024-01-03T00:00:00Z',
          bucketWeights: { '26': 10000 },
          totalWeight: 0.7071067811865475,
        },
        firstSampleStart: '2024-01-01T12:00:00Z',
        lastSampleStart: '2024-01-02T12:00:00Z',
        totalSamplesCount: 2,
      });
      expect(Object.keys(status)).toEqual([
        'lastUpdateTime',
        'version',
        'cpuHistogram',
        'memoryHistogram',
        'firstSampleStart',
        'lastSampleStart',
        'totalSamplesCount',
      ]);
      // Saved as class instances (no allocation site for V8 to pretenure), in JSON the literals upstream's fields make.
      expect(Object.keys(status.cpuHistogram)).toEqual([
        'referenceTimestamp',
        'bucketWeights',
        'totalWeight',
      ]);
      expect(JSON.parse(JSON.stringify(status))).toEqual(status);
    });

    it('saves null times for an aggregate without CPU samples', () => {
      const status = new AggregateContainerState(T).saveCheckpoint(T);
      expect(status.firstSampleStart).toBeNull();
      expect(status.lastSampleStart).toBeNull();
      expect(status.cpuHistogram).toEqual({
        referenceTimestamp: null,
        bucketWeights: {},
        totalWeight: 0,
      });
    });

    it('restores what it saved', () => {
      const original = sampled();
      const restored = AggregateContainerState.fromCheckpoint(
        JSON.parse(JSON.stringify(original.saveCheckpoint(T))),
      );
      expect(restored.totalSamplesCount).toBe(2);
      expect(restored.firstSampleStartMs).toBe(original.firstSampleStartMs);
      expect(restored.lastSampleStartMs).toBe(original.lastSampleStartMs);
      expect(restored.cpuHistogram.bucketWeight(36)).toBe(0.07071067811865475);
      expect(restored.memoryHistogram.percentile(0.5)).toBe(
        original.memoryHistogram.percentile(0.5),
      );
      expect(restored.creationTimeMs).toBe(GO_ZERO_TIME_MS);
    });

    it('reads upstream JSON, which omits empty fields', () => {
      const restored = AggregateContainerState.fromCheckpoint({
        lastUpdateTime: '2024-06-01T00:00:00Z',
        version: 'v3',
        cpuHistogram: { referenceTimestamp: null },
        memoryHistogram: {
          referenceTimestamp: '2024-06-02T00:00:00Z',
          bucketWeights: { '20': 10000 },
          totalWeight: 3,
        },
        firstSampleStart: null,
        lastSampleStart: null,
      });
      expect(restored.isEmpty()).toBe(true);
      expect(restored.cpuHistogram.isEmpty()).toBe(true);
      expect(restored.memoryHistogram.totalWeight).toBe(3);
    });

    it.each<[string, unknown, string]>([
      [
        'null',
        null,
        'status: a checkpoint status must be a JSON object, got null',
      ],
      [
        'an array',
        [],
        'status: a checkpoint status must be a JSON object, got an array',
      ],
      [
        'another version',
        { version: 'v2' },
        'status.version: unsupported checkpoint version "v2", expected "v3"',
      ],
      [
        'no version',
        {},
        'status.version: unsupported checkpoint version nothing, expected "v3"',
      ],
      [
        'a negative count',
        { version: 'v3', totalSamplesCount: -1 },
        'status.totalSamplesCount: must be a non-negative integer, got -1',
      ],
      [
        'a fractional count',
        { version: 'v3', totalSamplesCount: 1.5 },
        'status.totalSamplesCount: must be a non-negative integer, got 1.5',
      ],
      [
        'a textual count',
        { version: 'v3', totalSamplesCount: '7' },
        'status.totalSamplesCount: must be a non-negative integer, got "7"',
      ],
      [
        'a bad sample time',
        { version: 'v3', lastSampleStart: 'Tuesday' },
        'status.lastSampleStart: expected an RFC 3339 timestamp such as "2024-01-02T00:00:00Z", got "Tuesday"',
      ],
      [
        'a negative histogram total',
        { version: 'v3', cpuHistogram: { totalWeight: -1 } },
        'status.cpuHistogram.totalWeight: must be a finite number >= 0, got -1',
      ],
      [
        'a bucket out of range',
        {
          version: 'v3',
          memoryHistogram: { totalWeight: 1, bucketWeights: { '176': 1 } },
        },
        'status.memoryHistogram.bucketWeights["176"]: bucket index 176 is out of range [0, 175]',
      ],
      [
        'a histogram that is not an object',
        { version: 'v3', cpuHistogram: 12 },
        'status.cpuHistogram: a histogram checkpoint must be a JSON object, got 12',
      ],
    ])('refuses %s', (_, status, message) => {
      expect(() => AggregateContainerState.fromCheckpoint(status)).toThrow(
        expect.objectContaining({ name: 'CheckpointError', message }),
      );
      expect(() => AggregateContainerState.fromCheckpoint(status)).toThrow(
        CheckpointError,
      );
    });
  });

  describe('bad input', () => {
    it('refuses an unusable configuration', () => {
      expect(
        () =>
          new AggregateContainerState(T, {
            ...DEFAULT_AGGREGATION_CONFIG,
            cpuHistogramDecayHalfLifeMs: 0,
          }),
      ).toThrow(
        new RangeError(
          'cpuHistogramDecayHalfLifeMs must be a finite number > 0, got 0',
        ),
      );
      expect(
        () =>
          new AggregateContainerState(T, {
            ...DEFAULT_AGGREGATION_CONFIG,
            memoryAggregationIntervalCount: 1.5,
          }),
      ).toThrow(
        new RangeError(
          'memoryAggregationIntervalCount must be a positive integer, got 1.5',
        ),
      );
      expect(
        () =>
          new AggregateContainerState(T, {
            ...DEFAULT_AGGREGATION_CONFIG,
            oomMinBumpUpBytes: -1,
          }),
      ).toThrow(
        new RangeError(
          'oomMinBumpUpBytes must be a finite number >= 0, got -1',
        ),
      );
      expect(() => new AggregateContainerState(Number.NaN)).toThrow(RangeError);
    });

    it('refuses non-finite sample times and values', () => {
      const state = new AggregateContainerState(T);
      expect(() => state.addCpuSample(Number.NaN, 1)).toThrow(RangeError);
      expect(() => state.addCpuSample(T, Infinity)).toThrow(RangeError);
      expect(() => state.addMemoryPeak(T, Number.NaN)).toThrow(RangeError);
      expect(state.totalSamplesCount).toBe(0);
    });
  });
});
