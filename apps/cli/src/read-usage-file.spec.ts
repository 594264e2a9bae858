import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUsageFile } from './read-usage-file.js';
import { UsageCsvError } from './usage-csv.js';
import { UsageSeriesCollector } from './usage-series.js';

const scratch = mkdtempSync(join(tmpdir(), 'tandem-usage-'));
const ROWS = [
  'timestamp_s,series_id,cpu_cores,memory_bytes',
  '120,a,0.1,100',
  '60,b,0.2,200',
  '60,a,0.3,300',
  '',
];

describe('readUsageFile', () => {
  const path = join(scratch, 'backwards.csv');
  writeFileSync(path, ROWS.join('\n'));

  it('groups series in first-seen order, whatever the time order, by default', async () => {
    expect(await readUsageFile(path)).toEqual(
      new Map([
        [
          'a',
          {
            timesMs: [120_000, 60_000],
            cpuMillicores: [100, 300],
            memoryBytes: [100, 300],
          },
        ],
        ['b', { timesMs: [60_000], cpuMillicores: [200], memoryBytes: [200] }],
      ]),
    );
  });

  it('refuses time going backwards in a series with inTimeOrder, naming the series, line and file', async () => {
    const error: unknown = await readUsageFile(path, undefined, {
      inTimeOrder: true,
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageCsvError);
    expect(error).toMatchObject({
      path,
      lineNumber: 4,
      message: "line 4: time goes backwards in series 'a': 60 s after 120 s",
    });
  });
});

describe('UsageSeriesCollector', () => {
  const sample = (seriesId: string, seconds: number) => ({
    seriesId,
    timeMs: seconds * 1000,
    cpuMillicores: 1,
    memoryBytes: 1,
  });

  it('accepts equal times in order, and series interleaved', () => {
    const collector = new UsageSeriesCollector(true);
    collector.add(sample('a', 10), 2);
    collector.add(sample('b', 5), 3);
    collector.add(sample('a', 10), 4);
    collector.add(sample('a', 11), 5);
    expect(collector.series.get('a')?.timesMs).toEqual([
      10_000, 10_000, 11_000,
    ]);
  });

  it('names the series and line where time goes backwards', () => {
    const collector = new UsageSeriesCollector(true);
    collector.add(sample('web-1', 10.5), 2);
    expect(() => collector.add(sample('web-1', 10.25), 7)).toThrow(
      new UsageCsvError(
        7,
        "time goes backwards in series 'web-1': 10.25 s after 10.5 s",
      ),
    );
  });
});
