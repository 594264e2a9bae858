import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCapacityFile } from './read-capacity-file.js';
import { UsageCsvError } from './usage-csv.js';

const scratch = mkdtempSync(join(tmpdir(), 'tandem-capacity-'));
const GIB = 1024 ** 3;
const USAGE_HEADER = 'timestamp_s,series_id,cpu_cores,memory_bytes';
const BITBRAINS_HEADER =
  'timestamp_s,series_id,cpu_cores_provisioned,cpu_capacity_mhz,memory_capacity_bytes';

let files = 0;
function file(lines: readonly string[]): string {
  files += 1;
  const path = join(scratch, `capacity-${files}.csv`);
  writeFileSync(path, [...lines, ''].join('\n'));
  return path;
}

async function failure(path: string): Promise<UsageCsvError> {
  const error: unknown = await readCapacityFile(path).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof UsageCsvError))
    throw new Error(`expected a UsageCsvError, got ${String(error)}`);
  return error;
}

describe('readCapacityFile', () => {
  it('reads change points per series under the usage header', async () => {
    const path = file([
      USAGE_HEADER,
      '1000,a,0.5,1073741824',
      '1000,b,2,536870912',
      '',
      '4600,a,1.25,2147483648',
    ]);
    expect(await readCapacityFile(path)).toEqual(
      new Map([
        [
          'a',
          {
            timesMs: [1_000_000, 4_600_000],
            sizes: [
              { cpu: 500, memory: GIB },
              { cpu: 1250, memory: 2 * GIB },
            ],
          },
        ],
        [
          'b',
          { timesMs: [1_000_000], sizes: [{ cpu: 2000, memory: GIB / 2 }] },
        ],
      ]),
    );
  });

  it("reads Bitbrains' capacity.csv as it is, ignoring its MHz column", async () => {
    const path = file([
      `\uFEFF${BITBRAINS_HEADER}\r`,
      '1376314846,1,4,11703.998,17179869184\r',
      '1376318446,1,8,23407.996,17179869184\r',
    ]);
    expect(await readCapacityFile(path)).toEqual(
      new Map([
        [
          '1',
          {
            timesMs: [1_376_314_846_000, 1_376_318_446_000],
            sizes: [
              { cpu: 4000, memory: 16 * GIB },
              { cpu: 8000, memory: 16 * GIB },
            ],
          },
        ],
      ]),
    );
  });

  it('finds the columns wherever the header puts them', async () => {
    const path = file([
      'memory_bytes,cpu_cores,series_id,timestamp_s',
      '1Gi,250m,x,60',
    ]);
    expect(await readCapacityFile(path)).toEqual(
      new Map([
        ['x', { timesMs: [60_000], sizes: [{ cpu: 250, memory: GIB }] }],
      ]),
    );
  });

  it.each([
    [
      [USAGE_HEADER.replace('memory_bytes', 'memory')],
      1,
      "line 1: the header has no 'memory_bytes' or 'memory_capacity_bytes' column (expected 'timestamp_s,series_id,cpu_cores,memory_bytes')",
    ],
    [
      ['series_id,cpu_cores,memory_bytes'],
      1,
      "line 1: the header has no 'timestamp_s' column (expected 'timestamp_s,series_id,cpu_cores,memory_bytes')",
    ],
    [
      [],
      1,
      "line 1: the header has no 'timestamp_s' column (expected 'timestamp_s,series_id,cpu_cores,memory_bytes')",
    ],
    [
      [BITBRAINS_HEADER, '1,a,4,100,1024', '2,a,4,1024'],
      3,
      'line 3: expected 5 comma-separated fields, found 4',
    ],
    [
      [USAGE_HEADER, '1,a,0.5,1024,extra'],
      2,
      'line 2: expected 4 comma-separated fields, found 5',
    ],
    [
      [USAGE_HEADER, 'later,a,0.5,1024'],
      2,
      "line 2: timestamp_s 'later' is not a finite number of seconds",
    ],
    [[USAGE_HEADER, '1,,0.5,1024'], 2, 'line 2: series_id is empty'],
    [[USAGE_HEADER, '1,a,-1,1024'], 2, "line 2: cpu_cores '-1' is negative"],
    [
      [USAGE_HEADER, '1,a,1,-1Gi'],
      2,
      "line 2: memory_bytes '-1Gi' is negative",
    ],
    [
      [USAGE_HEADER, '100,a,1,1Gi', '50,b,1,1Gi', '200,a,1,1Gi', '150,a,2,1Gi'],
      5,
      "line 5: time goes backwards in series 'a': 150 s after 200 s",
    ],
  ])(
    'refuses %j at line %d, naming the file',
    async (lines, lineNumber, message) => {
      const path = file(lines);
      const error = await failure(path);
      expect({
        path: error.path,
        lineNumber: error.lineNumber,
        message: error.message,
      }).toEqual({ path, lineNumber, message });
    },
  );

  it('names the column of an unparseable amount', async () => {
    const error = await failure(file([USAGE_HEADER, '1,a,lots,1Gi']));
    expect(error.message).toMatch(
      /^line 2: cpu_cores 'lots' is not a number: /,
    );
  });
});
