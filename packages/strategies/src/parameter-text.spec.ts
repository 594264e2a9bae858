import fc from 'fast-check';
import {
  parameterText,
  readParameters,
  type ParameterSpec,
} from './parameters.js';
import { STRATEGIES } from './registry.js';
import type { ParameterValue } from './strategy.js';

/** What `readParameters` makes of the text `parameterText` writes for `value`. */
function readBack(spec: ParameterSpec, value: ParameterValue) {
  return readParameters('s', { p: spec }, { p: parameterText(spec, value) });
}

const SPECS = STRATEGIES.flatMap((definition) =>
  Object.entries(definition.parameters).map(([name, spec]) => ({
    label: `${definition.name} ${name}`,
    spec,
  })),
);

describe('parameterText', () => {
  it.each(SPECS)(
    '$label: any value in range reads back as itself',
    ({ spec }) => {
      const { min = 0, max = Number.MAX_SAFE_INTEGER } = spec;
      const values: fc.Arbitrary<ParameterValue> =
        spec.kind === 'boolean'
          ? fc.boolean()
          : spec.kind === 'number'
            ? fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
            : fc.integer({ min, max });
      fc.assert(
        fc.property(values, (value) => {
          expect(readBack(spec, value)).toEqual({ values: { p: value } });
        }),
      );
    },
  );

  it('writes durations in the largest unit that divides them, memory in bytes', () => {
    const duration: ParameterSpec = {
      kind: 'duration',
      fallback: 1,
      summary: '',
    };
    const memory: ParameterSpec = { kind: 'memory', fallback: 1, summary: '' };
    expect(parameterText(duration, 12 * 3_600_000)).toBe('12h');
    expect(parameterText(duration, 90 * 60_000)).toBe('90m');
    expect(parameterText(duration, 1500)).toBe('1500ms');
    expect(parameterText(duration, 61_000)).toBe('61s');
    expect(parameterText(memory, 100 * 1024 * 1024)).toBe('104857600');
  });

  it('writes numbers without an exponent, which the parser would refuse', () => {
    const number: ParameterSpec = {
      kind: 'number',
      fallback: 0,
      max: Number.MAX_VALUE,
      summary: '',
    };
    expect(parameterText(number, 1.5e-7)).toBe('0.00000015');
    expect(parameterText(number, 2.5e21)).toBe('2500000000000000000000');
    expect(parameterText(number, 0.15)).toBe('0.15');
    for (const value of [5e-324, 1.5e-7, 2.5e21, 1e300])
      expect(readBack(number, value)).toEqual({ values: { p: value } });
  });
});
