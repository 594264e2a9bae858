import { AggregateContainerState } from './aggregate-container-state.js';
import { confidence } from './confidence.js';
import {
  type AmountEstimator,
  percentileEstimator,
  withConfidenceMultiplier,
  withMargin,
  withMinimum,
} from './estimators.js';

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const T = Date.parse('2024-05-01T00:00:00Z');
const constant =
  (amount: number): AmountEstimator =>
  () =>
    amount;

/** Nine CPU samples two minutes apart, as in upstream's estimator tests. */
function nineSamples(): AggregateContainerState {
  const state = new AggregateContainerState(T);
  for (let i = 0; i < 9; i++) state.addCpuSample(T + 2 * i * MINUTE, 1000);
  return state;
}

describe('percentileEstimator', () => {
  it('reads CPU in millicores and memory in bytes (upstream TestPercentileEstimator)', () => {
    const state = new AggregateContainerState(T);
    for (const cores of [1, 2, 3]) state.addCpuSample(T + cores, cores * 1000);
    for (const bytes of [1e9, 2e9, 3e9]) state.addMemoryPeak(T, bytes);
    expect(percentileEstimator('cpu', 0.2)(state)).toBe(1016);
    expect(percentileEstimator('memory', 0.5)(state)).toBe(2093479957);
  });

  it('answers 0 for an empty histogram', () => {
    const state = new AggregateContainerState(T);
    expect(percentileEstimator('cpu', 0.9)(state)).toBe(0);
    expect(percentileEstimator('memory', 0.9)(state)).toBe(0);
  });
});

describe('confidence', () => {
  it('is the smaller of lifespan and sample count, in intervals (golden vector 12)', () => {
    expect(confidence(nineSamples(), DAY)).toBe(0.00625);
    expect(confidence(nineSamples(), 18 * MINUTE)).toBe(0.5);
  });

  it('is 0 without samples and for a single one', () => {
    const state = new AggregateContainerState(T);
    expect(confidence(state, DAY)).toBe(0);
    state.addCpuSample(T, 1);
    expect(confidence(state, DAY)).toBe(0);
  });

  it('is 1439/1440 after a day of one sample per minute (golden vector 15)', () => {
    const state = new AggregateContainerState(T);
    for (let i = 0; i < 1440; i++) state.addCpuSample(T + i * MINUTE, 500);
    expect(confidence(state, DAY)).toBe(0.9993055555555556);
  });
});

describe('withConfidenceMultiplier (golden vector 12)', () => {
  it('scales by (1 + 0.1 / 0.00625)^2 = 289 after nine samples', () => {
    expect(
      withConfidenceMultiplier(0.1, 2, DAY, constant(3140))(nineSamples()),
    ).toBe(907460);
    expect(
      withConfidenceMultiplier(0.1, 2, DAY, constant(3.14e9))(nineSamples()),
    ).toBe(9.0746e11);
  });

  it('truncates: 3140 × 1.44 = 4521.6 → 4521 with an 18-minute interval', () => {
    const state = nineSamples();
    expect(
      withConfidenceMultiplier(0.1, 2, 18 * MINUTE, constant(3140))(state),
    ).toBe(4521);
    expect(
      withConfidenceMultiplier(0.1, 2, 18 * MINUTE, constant(3.14e9))(state),
    ).toBe(4.5216e9);
  });

  it('goes to the cap or to 0 without history', () => {
    const empty = new AggregateContainerState(T);
    expect(withConfidenceMultiplier(1, 1, DAY, constant(3140))(empty)).toBe(
      1e14,
    );
    expect(withConfidenceMultiplier(1, -1, DAY, constant(3140))(empty)).toBe(0);
    expect(withConfidenceMultiplier(0.1, 2, DAY, constant(3140))(empty)).toBe(
      1e14,
    );
    // 0 × ∞ is NaN, which becomes 0 (and the per-pod minimum afterwards).
    expect(withConfidenceMultiplier(1, 1, DAY, constant(0))(empty)).toBe(0);
  });

  it('gives the vector 15 factors: ×2.0007 up and ×0.9980 down after a day', () => {
    const state = new AggregateContainerState(T);
    for (let i = 0; i < 1440; i++) state.addCpuSample(T + i * MINUTE, 500);
    expect(withConfidenceMultiplier(1, 1, DAY, constant(587))(state)).toBe(
      1174,
    );
    expect(withConfidenceMultiplier(0.001, -2, DAY, constant(587))(state)).toBe(
      585,
    );
    expect(withConfidenceMultiplier(1, 1, DAY, constant(1e9))(state)).toBe(
      2000694927,
    );
  });
});

describe('withMargin (golden vector 13)', () => {
  it('adds a truncated fraction', () => {
    expect(withMargin(0.1, constant(3140))(nineSamples())).toBe(3454);
    expect(withMargin(0.1, constant(3.14e9))(nineSamples())).toBe(3.454e9);
    expect(withMargin(0.15, constant(511))(nineSamples())).toBe(587);
  });

  it('does not cap the sum, as upstream', () => {
    expect(withMargin(0.15, constant(1e14))(nineSamples())).toBe(1.15e14);
  });
});

describe('withMinimum (golden vector 14)', () => {
  it('raises estimates below the minimum only', () => {
    expect(withMinimum(200, constant(3140))(nineSamples())).toBe(3140);
    expect(withMinimum(25, constant(1))(nineSamples())).toBe(25);
  });
});
