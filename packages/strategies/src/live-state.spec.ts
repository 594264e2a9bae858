import { CheckpointError } from '@tandem/histogram';
import {
  decodeStrategyState,
  encodeStrategyState,
  liveStrategyState,
  type LiveStrategyState,
} from './live-state.js';
import { STRATEGY_ANNOTATION, vpaStrategy } from './vpa-strategy.js';

const T0 = Date.UTC(2025, 0, 1);
const MINUTE = 60_000;

function strategyOf(annotations: Record<string, string>) {
  const result = vpaStrategy(annotations, 'upstream');
  if ('error' in result) throw new Error(result.error);
  return result.strategy;
}

const autopilot = strategyOf({ [STRATEGY_ANNOTATION]: 'autopilot' });
const tandem = strategyOf({ [STRATEGY_ANNOTATION]: 'tandem' });
const HOUR = 60 * MINUTE;
const MIB = 1024 * 1024;

function fromHistory(cpu: number, memory: number) {
  return {
    target: { cpu, memory },
    lowerBound: { cpu, memory },
    upperBound: { cpu, memory },
  };
}

function fed(): LiveStrategyState {
  const state = liveStrategyState(autopilot);
  if (state === undefined) throw new Error('autopilot keeps state');
  for (let minute = 0; minute < 120; minute += 1) {
    const timeMs = T0 + minute * MINUTE;
    state.addCpu(timeMs, 200 + (minute % 10) * 30);
    state.addMemory(timeMs, 300_000_000 + minute * 1_000_000);
  }
  state.recordOom(T0 + 120 * MINUTE, 400_000_000);
  return state;
}

describe('liveStrategyState', () => {
  it('is kept only by strategies that need more than upstream aggregate', () => {
    for (const name of ['upstream', 'vivo'])
      expect(
        liveStrategyState(strategyOf({ [STRATEGY_ANNOTATION]: name })),
      ).toBeUndefined();
    expect(liveStrategyState(autopilot)?.empty).toBe(true);
    expect(liveStrategyState(tandem)?.empty).toBe(true);
  });

  it('round-trips through the checkpoint annotation to the same recommendation', () => {
    const state = fed();
    const text = encodeStrategyState(autopilot, state);
    const restored = decodeStrategyState(autopilot, text);
    if (!('state' in restored)) throw new Error(restored.stale);
    expect(restored.state.empty).toBe(false);
    const at = T0 + 180 * MINUTE;
    // The CPU histogram comes back through upstream's codec (weights quantised to 1/10000
    // of the largest), so the percentile may move by at most one bucket; memory is exact.
    const before = state.recommend(at, undefined);
    const after = restored.state.recommend(at, undefined);
    expect(after.target.memory).toBe(before.target.memory);
    expect(Math.abs(after.target.cpu - before.target.cpu)).toBeLessThanOrEqual(
      before.target.cpu * 0.05,
    );
    expect(JSON.parse(encodeStrategyState(autopilot, restored.state))).toEqual(
      JSON.parse(text),
    );
  });

  it('calls a state of another strategy, other parameters or another version stale', () => {
    const text = encodeStrategyState(autopilot, fed());
    const faster = strategyOf({
      [STRATEGY_ANNOTATION]: 'autopilot',
      'tandem.dev/cpu-half-life': '6h',
    });
    expect(decodeStrategyState(faster, text)).toEqual({
      stale: 'written with other parameters',
    });
    expect(
      decodeStrategyState(
        strategyOf({ [STRATEGY_ANNOTATION]: 'upstream' }),
        text,
      ),
    ).toEqual({ stale: 'written for strategy "autopilot"' });
    expect(
      decodeStrategyState(
        autopilot,
        JSON.stringify({ ...JSON.parse(text), version: 2 }),
      ),
    ).toEqual({ stale: 'version 2' });
  });

  it('names the bad field of an unreadable state', () => {
    const envelope = JSON.parse(encodeStrategyState(autopilot, fed()));
    const broken = JSON.stringify({
      ...envelope,
      state: { ...envelope.state, memoryMax: { value: -1, timeMs: 0 } },
    });
    expect(() => decodeStrategyState(autopilot, broken)).toThrow(
      CheckpointError,
    );
    expect(() => decodeStrategyState(autopilot, broken)).toThrow(
      /tandem.dev\/strategy-state.state.memoryMax.value/,
    );
    expect(() => decodeStrategyState(autopilot, '{')).toThrow(/not JSON/);
  });
});

describe("tandem's live state", () => {
  function fedTandem(): LiveStrategyState {
    const state = liveStrategyState(tandem);
    if (state === undefined) throw new Error('tandem keeps state');
    state.addCpu(T0, 100);
    state.addMemory(T0, 100 * MIB);
    // Back after three days: 3 days - 1 h of the gap do not count.
    state.addCpu(T0 + 72 * HOUR, 100);
    state.recommend(T0 + 72 * HOUR, undefined, fromHistory(1000, 1000 * MIB));
    return state;
  }

  it('moves its clock with samples and holds what it gave within the band', () => {
    const state = fedTandem();
    expect(state.empty).toBe(false);
    expect(state.clock?.at(T0 + 72 * HOUR)).toBe(T0 + HOUR);
    expect(
      state.recommend(T0 + 73 * HOUR, undefined, fromHistory(1100, 900 * MIB))
        .target,
    ).toEqual({ cpu: 1000, memory: 1000 * MIB });
    expect(() => state.recommend(T0, undefined)).toThrow(/without upstream's/);
  });

  it('round-trips through the checkpoint annotation: the same clock and the same held recommendation', () => {
    const state = fedTandem();
    const text = encodeStrategyState(tandem, state);
    const restored = decodeStrategyState(tandem, text);
    if (!('state' in restored)) throw new Error(restored.stale);
    expect(restored.state.empty).toBe(false);
    expect(restored.state.clock?.at(T0 + 100 * HOUR)).toBe(
      state.clock?.at(T0 + 100 * HOUR),
    );
    const next = fromHistory(1100, 900 * MIB);
    expect(restored.state.recommend(T0, undefined, next)).toEqual(
      state.recommend(T0, undefined, next),
    );
    expect(JSON.parse(encodeStrategyState(tandem, restored.state))).toEqual(
      JSON.parse(text),
    );
  });

  it('names the bad field of an unreadable tandem state', () => {
    const envelope = JSON.parse(encodeStrategyState(tandem, fedTandem()));
    const broken = (state: unknown) => JSON.stringify({ ...envelope, state });
    expect(() =>
      decodeStrategyState(
        tandem,
        broken({ ...envelope.state, clock: { skippedMs: -5 } }),
      ),
    ).toThrow(
      /tandem.dev\/strategy-state.state.clock.skippedMs: must be a whole number >= 0, got -5/,
    );
    expect(() =>
      decodeStrategyState(
        tandem,
        broken({ ...envelope.state, held: { target: { cpu: 1 } } }),
      ),
    ).toThrow(/state.held.target.memory/);
    expect(() => decodeStrategyState(tandem, broken(7))).toThrow(
      /not an object/,
    );
  });
});
