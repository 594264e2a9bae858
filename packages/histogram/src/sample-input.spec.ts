import fc from 'fast-check';
import {
  requireSampleTime,
  requireSampleValue,
  requireSampleWeight,
  requireTimedSample,
} from './sample-input.js';

/** What the three checks in turn throw, or undefined. */
function errorOfChecksInTurn(
  value: number,
  weight: number,
  timeMs: number,
): unknown {
  try {
    requireSampleValue(value);
    requireSampleWeight(weight);
    requireSampleTime(timeMs);
    return undefined;
  } catch (error) {
    return error;
  }
}

function errorOfTimedSample(
  value: number,
  weight: number,
  timeMs: number,
): unknown {
  try {
    requireTimedSample(value, weight, timeMs);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('requireTimedSample', () => {
  // Mostly ordinary numbers, with every kind of bad one mixed in.
  const input = fc.oneof(
    fc.double(),
    fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0, -1, 1),
  );

  it('passes and refuses exactly what the three checks in turn do, with the same error', () => {
    fc.assert(
      fc.property(input, input, input, (value, weight, timeMs) => {
        expect(errorOfTimedSample(value, weight, timeMs)).toEqual(
          errorOfChecksInTurn(value, weight, timeMs),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('names the first bad input, value before weight before time', () => {
    expect(() => requireTimedSample(Number.NaN, -1, Infinity)).toThrow(
      new RangeError('sample value must be a finite number, got NaN'),
    );
    expect(() => requireTimedSample(1, -1, Infinity)).toThrow(
      new RangeError('sample weight must be a finite number >= 0, got -1'),
    );
    expect(() => requireTimedSample(1, 1, Infinity)).toThrow(
      new RangeError(
        'sample time must be finite milliseconds since the Unix epoch, got Infinity',
      ),
    );
  });
});
