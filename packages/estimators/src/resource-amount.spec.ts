import {
  cpuAmountFromCores,
  MAX_RESOURCE_AMOUNT,
  scaleResourceAmount,
  toResourceAmount,
} from './resource-amount.js';

describe('toResourceAmount', () => {
  it.each([
    [587.99, 587],
    [0.5, 0],
    [-3, 0],
    [Number.NaN, 0],
    [Infinity, MAX_RESOURCE_AMOUNT],
    [1e14 + 1, 1e14],
    [99999999999999.9, 99999999999999],
  ])('%p → %p', (value, expected) => {
    expect(toResourceAmount(value)).toBe(expected);
  });

  it('scales with truncation and converts cores to millicores', () => {
    expect(scaleResourceAmount(3140, 0.1)).toBe(314);
    expect(scaleResourceAmount(0, Infinity)).toBe(0);
    expect(cpuAmountFromCores(0.5111345375888706)).toBe(511);
    expect(cpuAmountFromCores(25 * 0.001)).toBe(25);
  });
});
