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
    for (const name of ['upstream', 'tandem', 'vivo'])
      expect(
        liveStrategyState(strategyOf({ [STRATEGY_ANNOTATION]: name })),
      ).toBeUndefined();
    expect(liveStrategyState(autopilot)?.empty).toBe(true);
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
