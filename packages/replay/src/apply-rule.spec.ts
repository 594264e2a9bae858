import type { ResourceAmounts } from '@tandem/estimators';
import type { StrategyRecommendation } from '@tandem/strategies';
import {
  relativeChange,
  shouldApply,
  type ApplyMode,
  type PodState,
} from './apply-rule.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2024-01-01T00:00:00Z');
const REQUEST: ResourceAmounts = { cpu: 1000, memory: 1000 };
const WIDE = {
  lowerBound: { cpu: 500, memory: 500 },
  upperBound: { cpu: 2000, memory: 2000 },
};

function recommend(
  target: ResourceAmounts,
  bounds: Omit<StrategyRecommendation, 'target'> = WIDE,
): StrategyRecommendation {
  return { target, ...bounds };
}

function pod(ageMs: number, quickOom = false): [PodState, number] {
  return [{ request: REQUEST, podStartMs: T0, quickOom }, T0 + ageMs];
}

describe('relativeChange', () => {
  it.each([
    [REQUEST, REQUEST, 0],
    [REQUEST, { cpu: 1100, memory: 1000 }, 0.1],
    [REQUEST, { cpu: 900, memory: 1000 }, 0.1],
    [REQUEST, { cpu: 1500, memory: 500 }, 1],
    [{ cpu: 200, memory: 4000 }, { cpu: 100, memory: 5000 }, 0.75],
    // A zero request counts as 1, as upstream's priority does.
    [{ cpu: 0, memory: 0 }, { cpu: 5, memory: 0 }, 5],
    [{ cpu: 0, memory: 1 }, { cpu: 0, memory: 3 }, 2],
  ])('from %j to %j is %d', (request, target, change) => {
    expect(relativeChange(request, target)).toBe(change);
  });
});

describe('shouldApply', () => {
  const atThreshold = { cpu: 1100, memory: 1000 }; // exactly 0.1
  const split = { cpu: 1050, memory: 950 }; // 0.05 + 0.05
  const under = { cpu: 1099, memory: 1000 }; // 0.099
  const twelveHours = 12 * HOUR;

  it.each<
    [string, ApplyMode, StrategyRecommendation, [PodState, number], boolean]
  >([
    [
      'evict: nothing to change',
      'evict',
      recommend(REQUEST),
      pod(0, true),
      false,
    ],
    [
      'evict: the request is the target but outside its bounds',
      'evict',
      recommend(REQUEST, { lowerBound: REQUEST, upperBound: REQUEST }),
      pod(0),
      false,
    ],
    [
      'evict: below the lower bound, young pod, small change',
      'evict',
      recommend(
        { cpu: 1001, memory: 1000 },
        {
          lowerBound: { cpu: 1001, memory: 500 },
          upperBound: WIDE.upperBound,
        },
      ),
      pod(0),
      true,
    ],
    [
      'evict: above the upper bound (memory), young pod, small change',
      'evict',
      recommend(
        { cpu: 1000, memory: 999 },
        {
          lowerBound: WIDE.lowerBound,
          upperBound: { cpu: 2000, memory: 999 },
        },
      ),
      pod(0),
      true,
    ],
    [
      'evict: at the lower bound exactly is inside',
      'evict',
      recommend(atThreshold, {
        lowerBound: REQUEST,
        upperBound: WIDE.upperBound,
      }),
      pod(twelveHours - 1),
      false,
    ],
    [
      'evict: quick OOM, young pod, small change',
      'evict',
      recommend(under),
      pod(0, true),
      true,
    ],
    [
      'evict: in bounds, 10 % exactly, 12 h exactly',
      'evict',
      recommend(atThreshold),
      pod(twelveHours),
      true,
    ],
    [
      'evict: in bounds, 10 % split over both resources, 12 h exactly',
      'evict',
      recommend(split),
      pod(twelveHours),
      true,
    ],
    [
      'evict: in bounds, 10 %, 1 ms short of 12 h',
      'evict',
      recommend(atThreshold),
      pod(twelveHours - 1),
      false,
    ],
    [
      'evict: in bounds, 12 h, just under 10 %',
      'evict',
      recommend(under),
      pod(2 * twelveHours),
      false,
    ],
    [
      'in-place: nothing to change',
      'in-place',
      recommend(REQUEST),
      pod(0, true),
      false,
    ],
    [
      'in-place: 10 % exactly, young pod',
      'in-place',
      recommend(atThreshold),
      pod(0),
      true,
    ],
    [
      'in-place: 10 % split, young pod',
      'in-place',
      recommend(split),
      pod(0),
      true,
    ],
    [
      'in-place: just under 10 %, old pod',
      'in-place',
      recommend(under),
      pod(48 * HOUR),
      false,
    ],
    [
      'in-place: outside bounds but a small change',
      'in-place',
      recommend(
        { cpu: 1001, memory: 1000 },
        {
          lowerBound: { cpu: 1001, memory: 500 },
          upperBound: WIDE.upperBound,
        },
      ),
      pod(0),
      false,
    ],
    [
      'in-place: quick OOM but a small change',
      'in-place',
      recommend(under),
      pod(0, true),
      false,
    ],
  ])('%s', (_, mode, recommendation, [state, nowMs], expected) => {
    expect(shouldApply(mode, recommendation, state, nowMs)).toBe(expected);
  });
});
