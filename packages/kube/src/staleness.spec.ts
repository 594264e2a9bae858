import { isWatchStale, stalenessCheckIntervalMs } from './staleness.js';

describe('watch staleness', () => {
  it('is stale only once strictly more than the limit has passed without activity', () => {
    expect(isWatchStale(1_000, 1_000, 500)).toBe(false);
    expect(isWatchStale(1_000, 1_500, 500)).toBe(false);
    expect(isWatchStale(1_000, 1_501, 500)).toBe(true);
  });

  it('checks four times per limit, within [50 ms, 5 s]', () => {
    expect(stalenessCheckIntervalMs(90_000)).toBe(5_000);
    expect(stalenessCheckIntervalMs(8_000)).toBe(2_000);
    expect(stalenessCheckIntervalMs(100)).toBe(50);
  });
});
