import fc from 'fast-check';
import {
  parsePrometheusDuration,
  PrometheusDurationError,
} from './prometheus-duration.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('parsePrometheusDuration', () => {
  it.each([
    ['8d', 8 * DAY],
    ['1h', HOUR],
    ['30m', 30 * MINUTE],
    ['1w', 7 * DAY],
    ['1y', 365 * DAY],
    ['1h30m', 90 * MINUTE],
    ['500ms', 500],
    ['1m500ms', MINUTE + 500],
    ['90s', 90_000],
    [
      '1y2w3d4h5m6s7ms',
      365 * DAY + 14 * DAY + 3 * DAY + 4 * HOUR + 5 * MINUTE + 6007,
    ],
    ['0', 0],
    ['0s', 0],
  ])('reads %s', (text, ms) =>
    expect(parsePrometheusDuration(text, 'history-length')).toBe(ms),
  );

  it.each(['', '1.5h', '30m1h', '1h1h', '-1h', '1 h', '10', 'h', '1d ', '1M'])(
    'rejects %j naming the flag',
    (text) =>
      expect(() => parsePrometheusDuration(text, 'history-resolution')).toThrow(
        new PrometheusDurationError(
          `--history-resolution: '${text}' is not a Prometheus duration such as 30m, 1h30m, 8d or 1w (units y, w, d, h, m, s, ms, largest first)`,
        ),
      ),
  );

  it('rejects a duration too long to count in milliseconds', () =>
    expect(() =>
      parsePrometheusDuration('99999999999999y', 'history-length'),
    ).toThrow("--history-length: '99999999999999y' is out of range"));

  it('reads back any composition of units, largest first', () => {
    const units: [string, number][] = [
      ['y', 365 * DAY],
      ['w', 7 * DAY],
      ['d', DAY],
      ['h', HOUR],
      ['m', MINUTE],
      ['s', 1000],
      ['ms', 1],
    ];
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat({ max: 1000 }), { nil: undefined }), {
          minLength: units.length,
          maxLength: units.length,
        }),
        (counts) => {
          const parts = units.flatMap(([unit, unitMs], index) => {
            const count = counts[index];
            return count === undefined
              ? []
              : [{ text: `${count}${unit}`, ms: count * unitMs }];
          });
          fc.pre(parts.length > 0);
          const text = parts.map((part) => part.text).join('');
          const ms = parts.reduce((sum, part) => sum + part.ms, 0);
          expect(parsePrometheusDuration(text, 'x')).toBe(ms);
        },
      ),
    );
  });
});
