import { elapsedNanosLikeGo, GO_ZERO_TIME_MS, roundLikeGo } from './go-time.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('GO_ZERO_TIME_MS', () => {
  it('is 0001-01-01T00:00:00Z', () => {
    expect(new Date(GO_ZERO_TIME_MS).toISOString()).toBe(
      '0001-01-01T00:00:00.000Z',
    );
  });
});

describe('roundLikeGo', () => {
  it('rounds to the nearest multiple, halfway up (vector 11)', () => {
    const noon = Date.parse('2024-01-01T12:00:00Z');
    expect(roundLikeGo(noon, DAY)).toBe(Date.parse('2024-01-02T00:00:00Z'));
    expect(roundLikeGo(noon - 1, DAY)).toBe(Date.parse('2024-01-01T00:00:00Z'));
  });

  it('counts multiples from Go’s zero time, not from the Unix epoch', () => {
    // 0001-01-01 is 719162 days before 1970-01-01; 719162 = 7 * 102737 + 3, so 7-hour
    // multiples are offset from the epoch by 3 * 24 = 72 h = 10 * 7 h + 2 h.
    const epoch = 0;
    expect(roundLikeGo(epoch, 7 * HOUR)).toBe(-2 * HOUR);
    expect(roundLikeGo(epoch + HOUR, 7 * HOUR)).toBe(-2 * HOUR);
    expect(roundLikeGo(epoch + 1.5 * HOUR, 7 * HOUR)).toBe(5 * HOUR);
  });
});

describe('elapsedNanosLikeGo', () => {
  it('returns nanoseconds as a double', () => {
    expect(elapsedNanosLikeGo(0, 1500)).toBe(1.5e9);
    expect(elapsedNanosLikeGo(1500, 0)).toBe(-1.5e9);
  });

  it('rounds like Go’s int64 to float64 conversion beyond 2^53 ns', () => {
    // 9007199254741000000 ns is not a double: both Go and we round it to the nearest one.
    const ms = 9007199254741;
    expect(elapsedNanosLikeGo(0, ms)).toBe(9007199254741000000);
  });

  it('saturates like a Go Duration at about ±292 years', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(elapsedNanosLikeGo(GO_ZERO_TIME_MS, now)).toBe(2 ** 63);
    expect(elapsedNanosLikeGo(now, GO_ZERO_TIME_MS)).toBe(-(2 ** 63));
  });
});
