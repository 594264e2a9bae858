import { AggregateContainerState } from './aggregate-container-state.js';
import {
  type AggregationConfig,
  DEFAULT_AGGREGATION_CONFIG,
} from './aggregation-config.js';
import { ContainerState, StaleOomError } from './container-state.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MIB = 1024 * 1024;
/** Upstream's test timestamp, 2017-04-18 17:35:05 UTC. */
const T = Date.parse('2017-04-18T17:35:05Z');

/** An aggregate that also writes down every memory histogram operation, relative to T. */
class RecordingAggregate extends AggregateContainerState {
  readonly memoryOperations: string[] = [];

  override addMemoryPeak(timeMs: number, bytes: number): void {
    this.memoryOperations.push(`add ${bytes} @${(timeMs - T) / HOUR}h`);
    super.addMemoryPeak(timeMs, bytes);
  }

  override subtractMemoryPeak(timeMs: number, bytes: number): void {
    this.memoryOperations.push(`subtract ${bytes} @${(timeMs - T) / HOUR}h`);
    super.subtractMemoryPeak(timeMs, bytes);
  }
}

function container(config: AggregationConfig = DEFAULT_AGGREGATION_CONFIG) {
  const aggregate = new RecordingAggregate(T, config);
  return { aggregate, state: new ContainerState(aggregate) };
}

const cpu = (timeMs: number, usage: number) => ({
  timeMs,
  resource: 'cpu' as const,
  usage,
});
const memory = (timeMs: number, usage: number) => ({
  timeMs,
  resource: 'memory' as const,
  usage,
});

describe('ContainerState', () => {
  describe('samples (upstream TestAggregateContainerUsageSamples)', () => {
    it('aggregates valid samples and drops out-of-order and negative ones', () => {
      const { aggregate, state } = container();
      const step = 12 * HOUR;
      expect(state.addSample(cpu(T, 3140))).toBe(true);
      expect(state.addSample(memory(T, 5))).toBe(true);
      expect(state.addSample(cpu(T + step, 6280))).toBe(true);
      expect(state.addSample(memory(T + step, 10))).toBe(true);
      expect(state.addSample(cpu(T + 2 * step, 1570))).toBe(true);
      expect(state.addSample(memory(T + 2 * step, 2))).toBe(true);

      expect(state.addSample(cpu(T + 2 * step, 1000))).toBe(false);
      expect(state.addSample(cpu(T + 4 * step, -1000))).toBe(false);
      expect(state.addSample(memory(T + 4 * step, -1000))).toBe(false);

      expect(aggregate.totalSamplesCount).toBe(3);
      expect(aggregate.firstSampleStartMs).toBe(T);
      expect(aggregate.lastSampleStartMs).toBe(T + 2 * step);
      // Golden vector 17: one peak per 24 h window, filed at the window's end.
      expect(aggregate.memoryOperations).toEqual([
        'add 5 @24h',
        'subtract 5 @24h',
        'add 10 @24h',
        'add 2 @48h',
      ]);
    });

    it('takes memory samples with equal times but not older ones', () => {
      const { aggregate, state } = container();
      expect(state.addSample(memory(T, 100))).toBe(true);
      expect(state.addSample(memory(T, 200))).toBe(true);
      expect(state.addSample(memory(T - 1, 300))).toBe(false);
      expect(aggregate.memoryOperations).toEqual([
        'add 100 @24h',
        'subtract 100 @24h',
        'add 200 @24h',
      ]);
    });

    it('keeps a lower sample from replacing the window’s peak', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 500));
      expect(state.addSample(memory(T + HOUR, 400))).toBe(true);
      expect(state.currentPeakBytes).toBe(500);
      expect(aggregate.memoryOperations).toEqual(['add 500 @24h']);
    });

    it('opens the window containing a sample after a gap, aligned to the first sample', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 1));
      state.addSample(memory(T + 3 * DAY + HOUR, 2));
      expect(state.windowEndMs).toBe(T + 4 * DAY);
      expect(aggregate.memoryOperations).toEqual(['add 1 @24h', 'add 2 @96h']);
    });

    it('keeps upstream’s quirk: a window whose first peak is 0 ignores later samples', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 0));
      expect(state.addSample(memory(T + HOUR, 700))).toBe(true);
      expect(aggregate.memoryOperations).toEqual(['add 0 @24h']);
    });

    it('uses the aggregate’s interval (golden vector 17, 1 h interval)', () => {
      const { aggregate, state } = container({
        ...DEFAULT_AGGREGATION_CONFIG,
        memoryAggregationIntervalMs: HOUR,
      });
      state.addSample(memory(T, 5));
      state.addSample(memory(T + 2 * HOUR, 10));
      expect(aggregate.memoryOperations).toEqual(['add 5 @1h', 'add 10 @3h']);
    });

    it('updates a peak within a 1 h window', () => {
      const { aggregate, state } = container({
        ...DEFAULT_AGGREGATION_CONFIG,
        memoryAggregationIntervalMs: HOUR,
      });
      state.addSample(memory(T, 5));
      state.addSample(memory(T + HOUR / 2, 10));
      expect(aggregate.memoryOperations).toEqual([
        'add 5 @1h',
        'subtract 5 @1h',
        'add 10 @1h',
      ]);
    });
  });

  describe('OOM kills (golden vector 18)', () => {
    it('bumps the request by 20 %', () => {
      const { aggregate, state } = container();
      state.recordOom(T, 1000 * MIB);
      expect(aggregate.memoryOperations).toEqual([`add ${1200 * MIB} @24h`]);
      expect(1200 * MIB).toBe(1258291200);
    });

    it('bumps by at least 100 MiB', () => {
      const { aggregate, state } = container();
      state.recordOom(T, MIB);
      expect(aggregate.memoryOperations).toEqual([`add ${101 * MIB} @24h`]);
    });

    it('bumps the usage peak when it exceeds the request', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 3000 * MIB));
      state.recordOom(T, 1000 * MIB);
      expect(aggregate.memoryOperations).toEqual([
        `add ${3000 * MIB} @24h`,
        `subtract ${3000 * MIB} @24h`,
        `add ${3600 * MIB} @24h`,
      ]);
    });

    it('bumps at most to a cap, never below what was used (kubernetes/autoscaler#9521)', () => {
      const { aggregate, state } = container();
      const bump = DEFAULT_AGGREGATION_CONFIG;
      expect(state.recordOom(T, 1000 * MIB, bump, 1100 * MIB)).toBe(1100 * MIB);
      const other = container();
      expect(other.state.recordOom(T, 1000 * MIB, bump, 500 * MIB)).toBe(
        1000 * MIB,
      );
      expect(aggregate.memoryOperations).toEqual([`add ${1100 * MIB} @24h`]);
    });

    it('does not compound on its own OOM peak', () => {
      const { aggregate, state } = container();
      state.recordOom(T, 1000 * MIB);
      state.recordOom(T, 999 * MIB);
      state.recordOom(T, 999 * MIB);
      state.recordOom(T, 2000 * MIB);
      expect(aggregate.memoryOperations).toEqual([
        `add ${1200 * MIB} @24h`,
        `subtract ${1200 * MIB} @24h`,
        `add ${2400 * MIB} @24h`,
      ]);
    });

    it('files an OOM in a later window at that window’s end', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 2000 * MIB));
      state.recordOom(T + 2 * DAY, 1000 * MIB);
      expect(aggregate.memoryOperations).toEqual([
        `add ${2000 * MIB} @24h`,
        `add ${2400 * MIB} @72h`,
      ]);
    });

    it('accepts a fresh OOM just before a window boundary (upstream #8548)', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 100 * MIB));
      state.addSample(memory(T + DAY, 2000 * MIB));
      state.recordOom(T + DAY - 1000, 1000 * MIB);
      expect(aggregate.memoryOperations.slice(-2)).toEqual([
        `subtract ${2000 * MIB} @48h`,
        `add ${2400 * MIB} @48h`,
      ]);
    });

    it('rejects an OOM more than one interval older than the last memory sample', () => {
      const { aggregate, state } = container();
      state.addSample(memory(T, 1000 * MIB));
      expect(() => state.recordOom(T - 30 * HOUR, 1000 * MIB)).toThrow(
        StaleOomError,
      );
      expect(() => state.recordOom(T - 30 * HOUR, 1000 * MIB)).toThrow(
        'OOM at 2017-04-17T11:35:05.000Z is too old to record: the last memory sample is from ' +
          '2017-04-18T17:35:05.000Z, more than one memory aggregation interval (86400000 ms) later',
      );
      expect(aggregate.memoryOperations).toEqual([`add ${1000 * MIB} @24h`]);
    });

    it('rejects by the aggregate’s interval', () => {
      const { state } = container({
        ...DEFAULT_AGGREGATION_CONFIG,
        memoryAggregationIntervalMs: HOUR,
      });
      state.addSample(memory(T, 1000 * MIB));
      expect(() => state.recordOom(T - 2 * HOUR, 1000 * MIB)).toThrow(
        StaleOomError,
      );
    });

    it('follows the configured bump', () => {
      const { aggregate, state } = container({
        ...DEFAULT_AGGREGATION_CONFIG,
        oomBumpUpRatio: 2,
        oomMinBumpUpBytes: 0,
      });
      state.recordOom(T, 10 * MIB);
      expect(aggregate.memoryOperations).toEqual([`add ${20 * MIB} @24h`]);
    });
  });

  describe('bad input', () => {
    it.each([
      [
        cpu(Number.NaN, 1),
        'sample time must be finite milliseconds since the Unix epoch, got NaN',
      ],
      [cpu(T, 1.5), 'cpu usage must be a whole number of millicores, got 1.5'],
      [
        memory(T, Number.NaN),
        'memory usage must be a whole number of bytes, got NaN',
      ],
      [
        memory(T, Infinity),
        'memory usage must be a whole number of bytes, got Infinity',
      ],
      [
        { timeMs: T, resource: 'disk' as 'cpu', usage: 1 },
        'sample resource must be "cpu" or "memory", got "disk"',
      ],
    ])('refuses %p', (sample, message) => {
      const { aggregate, state } = container();
      expect(() => state.addSample(sample)).toThrow(new RangeError(message));
      expect(aggregate.totalSamplesCount).toBe(0);
    });

    it('refuses a bad OOM', () => {
      const { state } = container();
      expect(() => state.recordOom(Infinity, MIB)).toThrow(RangeError);
      expect(() => state.recordOom(T, -1)).toThrow(
        new RangeError(
          'requested memory must be a whole number of bytes >= 0, got -1',
        ),
      );
    });
  });
});
