import fc from 'fast-check';
import { parseQuantity } from '@tandem/vpa-api';
import { formatMetricQuantity, roundedUpMillis } from './metric-quantity.js';

describe('formatMetricQuantity', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [60, '60'],
    [61.5, '61500m'],
    [30, '30'],
    [0.0001, '1m'],
    [1e-300, '1m'],
    [86.95652173913044, '86957m'],
    [2 ** 53, '9007199254740992'],
    [2 ** 53 - 1, '9007199254740991'],
    [1e21, '1000000000000000000000'],
    [4294967296.5, '4294967296500m'],
    // Float noise: 100 × 0.07 and 0.07 × 1000 are a hair above the true value.
    [100 * 0.07, '7'],
    [0.07, '70m'],
    [(100 * 0.6 * 1000) / 690, '86957m'],
  ])('prints %p as %j', (value, text) => {
    expect(formatMetricQuantity(value)).toBe(text);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %p', (value) => {
    expect(() => formatMetricQuantity(value)).toThrow(RangeError);
  });

  const values = fc.oneof(
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    fc.double({ min: 0, max: 2 ** 53, noNaN: true }),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    fc.nat(100_000).map((n) => n / 1000),
  );

  it('reads back as the value in milli-units, rounded up', () => {
    fc.assert(
      fc.property(values, (value) => {
        const text = formatMetricQuantity(value);
        const millis = parseQuantity(text).milliValue();
        expect(millis).toBe(roundedUpMillis(value));
        // Rounded up: never below the value, less than one milli-unit above it (the
        // comparison in doubles forgives the float noise roundedUpMillis forgives).
        const scaled = value * 1000;
        expect(Number(millis)).toBeGreaterThanOrEqual(
          scaled - Math.abs(scaled) * 1e-12,
        );
        expect(Number(millis)).toBeLessThanOrEqual(scaled + 1);
      }),
      { numRuns: 2000 },
    );
  });

  it('is exactly ceil(value × 1000) unless that product is float noise away from a whole number', () => {
    fc.assert(
      fc.property(values, (value) => {
        const scaled = value * 1000;
        const nearest = Math.round(scaled);
        fc.pre(Math.abs(scaled - nearest) > Math.abs(scaled) * 1e-12);
        fc.pre(!Number.isInteger(value));
        expect(parseQuantity(formatMetricQuantity(value)).milliValue()).toBe(
          BigInt(Math.ceil(scaled)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('prints whole values exactly, as bare integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (value) => {
          expect(formatMetricQuantity(value)).toBe(String(value));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never uses an exponent or a fraction', () => {
    fc.assert(
      fc.property(
        fc.oneof(values, fc.double({ min: 0, max: 1e300, noNaN: true })),
        (value) => {
          expect(formatMetricQuantity(value)).toMatch(/^[0-9]+m?$/);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
