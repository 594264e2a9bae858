import fc from 'fast-check';
import {
  formatCpuMillicores,
  formatMemoryBytes,
  parseCpuMillicores,
  parseMemoryBytes,
} from '@tandem/vpa-api';
import type { SeriesRecommendation } from './recommend.js';
import { binaryUnits, renderJson, renderTable } from './render.js';

const BOUNDS = ['target', 'lowerBound', 'upperBound'] as const;

interface Amounts {
  cpuMillicores: number;
  memoryBytes: number;
}

/** A recommendation as the estimators write it: quantity strings from the amounts. */
function recommendation(
  samples: number,
  [target, lowerBound, upperBound]: readonly [Amounts, Amounts, Amounts],
): SeriesRecommendation {
  const quantities = ({ cpuMillicores, memoryBytes }: Amounts) => ({
    cpu: formatCpuMillicores(cpuMillicores),
    memory: formatMemoryBytes(memoryBytes),
  });
  return {
    samples,
    target: quantities(target),
    lowerBound: quantities(lowerBound),
    upperBound: quantities(upperBound),
  };
}

/** The rows below the header, each split on runs of blanks as awk splits fields. */
function dataFields(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/));
}

describe('renderTable', () => {
  it('prints CPU as kubectl does and memory in binary units: millicores, whole cores, 600Mi, 599.6Mi', () => {
    const table = renderTable(
      new Map([
        [
          'web',
          recommendation(1440, [
            { cpuMillicores: 587, memoryBytes: 600 * 2 ** 20 },
            { cpuMillicores: 2000, memoryBytes: 2 ** 30 },
            { cpuMillicores: 1174, memoryBytes: 628694953 },
          ]),
        ],
      ]),
    );
    expect(table).toBe(
      [
        'SERIES  SAMPLES  TARGET CPU  TARGET MEMORY  LOWER CPU  LOWER MEMORY  UPPER CPU  UPPER MEMORY',
        'web        1440        587m          600Mi          2           1Gi      1174m       599.6Mi',
        '',
      ].join('\n'),
    );
  });

  it('writes every cell as one token that parses back to the recommended amount (memory within 0.05 %)', () => {
    const amounts = fc.record({
      cpuMillicores: fc.maxSafeNat(),
      memoryBytes: fc.oneof(
        // Up to 4 PiB: rounded to four digits, 2^53 itself would leave the safe integers.
        fc.integer({ min: 0, max: 2 ** 52 }),
        // Exact multiples of KiB…GiB, which take a binary suffix.
        fc
          .tuple(
            fc.integer({ min: 1, max: 2 ** 20 }),
            fc.integer({ min: 1, max: 3 }),
          )
          .map(([mantissa, power]) => mantissa * 1024 ** power),
      ),
    });
    const series = fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^[A-Za-z0-9._/-]{1,30}$/),
        samples: fc.integer({ min: 1, max: 10 ** 7 }),
        bounds: fc.tuple(amounts, amounts, amounts),
      }),
      { minLength: 1, maxLength: 5, selector: (entry) => entry.id },
    );
    fc.assert(
      fc.property(series, (entries) => {
        const rows = dataFields(
          renderTable(
            new Map(
              entries.map(({ id, samples, bounds }) => [
                id,
                recommendation(samples, bounds),
              ]),
            ),
          ),
        );
        expect(rows).toHaveLength(entries.length);
        entries.forEach(({ id, samples, bounds }, index) => {
          const [seriesId, sampleCount, ...quantities] = rows[index] ?? [];
          expect(seriesId).toBe(id);
          expect(sampleCount).toBe(String(samples));
          expect(quantities).toHaveLength(2 * BOUNDS.length);
          bounds.forEach(({ cpuMillicores, memoryBytes }, bound) => {
            expect(parseCpuMillicores(quantities[2 * bound] ?? '')).toBe(
              cpuMillicores,
            );
            expect(
              Math.abs(
                parseMemoryBytes(quantities[2 * bound + 1] ?? '') - memoryBytes,
              ),
            ).toBeLessThanOrEqual(Math.max(1, memoryBytes * 5e-4));
          });
        });
      }),
    );
  });

  it('shows the JSON document’s CPU strings, and its memory in binary units', () => {
    const recommendations = new Map([
      [
        'fresh',
        recommendation(1, [
          { cpuMillicores: 587, memoryBytes: 628694953 },
          { cpuMillicores: 25, memoryBytes: 250 * 2 ** 20 },
          { cpuMillicores: 1e14, memoryBytes: 1e14 },
        ]),
      ],
    ]);
    const document = JSON.parse(renderJson(recommendations)) as Record<
      string,
      Record<(typeof BOUNDS)[number], { cpu: string; memory: string }>
    >;
    const fresh = document['fresh'];
    expect(dataFields(renderTable(recommendations))).toEqual([
      [
        'fresh',
        '1',
        ...BOUNDS.flatMap((bound) => [
          fresh?.[bound].cpu,
          binaryUnits(fresh?.[bound].memory ?? ''),
        ]),
      ],
    ]);
    expect(fresh?.upperBound).toEqual({ cpu: '100G', memory: '97656250000Ki' });
  });
});

describe('binaryUnits', () => {
  it.each([
    ['628694953', '599.6Mi'],
    ['250Mi', '250Mi'],
    ['1257826803', '1.171Gi'],
    ['512', '512'],
    ['1024', '1Ki'],
    ['3Gi', '3Gi'],
    ['1.5Gi', '1.5Gi'],
  ])('shows %s as %s', (memory, shown) => {
    expect(binaryUnits(memory)).toBe(shown);
  });

  it('is one valid quantity within 0.05 % of the exact bytes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 50 }), (bytes) => {
        const shown = binaryUnits(String(bytes));
        expect(shown).toMatch(/^[0-9.]+(Ki|Mi|Gi|Ti|Pi)?$/);
        expect(Math.abs(parseMemoryBytes(shown) - bytes)).toBeLessThanOrEqual(
          Math.max(1, bytes * 5e-4),
        );
      }),
    );
  });
});
