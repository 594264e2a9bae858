import { CheckpointError } from './checkpoint-error.js';
import {
  formatCheckpointTime,
  parseCheckpointTime,
} from './checkpoint-time.js';
import { GO_ZERO_TIME_MS } from './go-time.js';

describe('formatCheckpointTime', () => {
  it('writes RFC 3339 at whole seconds, truncating', () => {
    expect(formatCheckpointTime(Date.parse('2024-01-02T00:00:00Z'))).toBe(
      '2024-01-02T00:00:00Z',
    );
    expect(formatCheckpointTime(Date.parse('2024-01-02T03:04:05.999Z'))).toBe(
      '2024-01-02T03:04:05Z',
    );
  });

  it('writes null for Go’s zero time', () => {
    expect(formatCheckpointTime(GO_ZERO_TIME_MS)).toBeNull();
  });

  it.each([Number.NaN, GO_ZERO_TIME_MS - 1000, 253402300800000])(
    'refuses %p, which RFC 3339 cannot express',
    (timeMs) => {
      expect(() => formatCheckpointTime(timeMs)).toThrow(RangeError);
    },
  );
});

describe('parseCheckpointTime', () => {
  it('reads UTC, offsets and fractions', () => {
    expect(parseCheckpointTime('2024-01-02T00:00:00Z', 'f')).toBe(
      Date.parse('2024-01-02T00:00:00Z'),
    );
    expect(parseCheckpointTime('2024-01-02T01:30:00+01:30', 'f')).toBe(
      Date.parse('2024-01-02T00:00:00Z'),
    );
    expect(
      parseCheckpointTime('2024-01-01T23:00:00.123456789-01:00', 'f'),
    ).toBe(Date.parse('2024-01-02T00:00:00.123Z'));
  });

  it('reads null, absence and the literal zero time as Go’s zero time', () => {
    expect(parseCheckpointTime(null, 'f')).toBe(GO_ZERO_TIME_MS);
    expect(parseCheckpointTime(undefined, 'f')).toBe(GO_ZERO_TIME_MS);
    expect(parseCheckpointTime('0001-01-01T00:00:00Z', 'f')).toBe(
      GO_ZERO_TIME_MS,
    );
  });

  it('round-trips what formatCheckpointTime writes', () => {
    const timeMs = Date.parse('1999-12-31T23:59:59Z');
    expect(parseCheckpointTime(formatCheckpointTime(timeMs), 'f')).toBe(timeMs);
  });

  it.each([
    ['2024-02-30T00:00:00Z'],
    ['2023-02-29T00:00:00Z'],
    ['2024-01-02 00:00:00Z'],
    ['2024-01-02T24:00:00Z'],
    ['2024-01-02T00:00:60Z'],
    ['2024-01-02T00:00:00'],
    ['yesterday'],
  ])('refuses %p naming the field', (text) => {
    expect(() => parseCheckpointTime(text, 'status.lastSampleStart')).toThrow(
      new CheckpointError(
        'status.lastSampleStart',
        `expected an RFC 3339 timestamp such as "2024-01-02T00:00:00Z", got ${JSON.stringify(text)}`,
      ),
    );
  });

  it('refuses non-strings', () => {
    expect(() => parseCheckpointTime(1704153600, 'referenceTimestamp')).toThrow(
      'referenceTimestamp: expected an RFC 3339 timestamp or null, got 1704153600',
    );
  });
});
