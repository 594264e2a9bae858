import { checkUsageHeader, parseUsageRow, UsageCsvError } from './usage-csv.js';

describe('usage CSV rows', () => {
  it('accepts the header, with a BOM or CRLF too', () => {
    expect(() =>
      checkUsageHeader('timestamp_s,series_id,cpu_cores,memory_bytes'),
    ).not.toThrow();
    expect(() =>
      checkUsageHeader('\uFEFFtimestamp_s,series_id,cpu_cores,memory_bytes\r'),
    ).not.toThrow();
  });

  it('rejects another header on line 1', () => {
    expect(() => checkUsageHeader('time,id,cpu,mem')).toThrow(
      new UsageCsvError(
        1,
        "expected the header 'timestamp_s,series_id,cpu_cores,memory_bytes', found 'time,id,cpu,mem'",
      ),
    );
  });

  it('converts cores to millicores and bytes exactly, rounding up like a quantity', () => {
    expect(parseUsageRow('1375308176,5,0.067,545458859', 2)).toEqual({
      seriesId: '5',
      timeMs: 1375308176000,
      cpuMillicores: 67,
      memoryBytes: 545458859,
    });
    // 0.0202332 cores is 20.2332m: a quantity rounds up to 21m; 0.0073 bytes rounds up to 1.
    expect(
      parseUsageRow('300,113812204462-22,0.0202332,0.00732422\r', 3),
    ).toEqual({
      seriesId: '113812204462-22',
      timeMs: 300000,
      cpuMillicores: 21,
      memoryBytes: 1,
    });
  });

  it('skips blank lines', () => {
    expect(parseUsageRow('', 9)).toBeUndefined();
    expect(parseUsageRow('\r', 9)).toBeUndefined();
  });

  it.each([
    ['1,a,0.5', 'line 7: expected 4 comma-separated fields, found 3'],
    ['x,a,0.5,10', "line 7: timestamp_s 'x' is not a finite number of seconds"],
    [',a,0.5,10', "line 7: timestamp_s '' is not a finite number of seconds"],
    ['1,,0.5,10', 'line 7: series_id is empty'],
    ['1,a,-0.5,10', "line 7: cpu_cores '-0.5' is negative"],
    ['1,a,0.5,-1', "line 7: memory_bytes '-1' is negative"],
  ])('reports %j precisely', (row, message) => {
    expect(() => parseUsageRow(row, 7)).toThrow(message);
  });

  it('names the column of an unparseable number', () => {
    expect(() => parseUsageRow('1,a,lots,10', 7)).toThrow(
      /^line 7: cpu_cores 'lots' is not a number: /,
    );
    expect(() => parseUsageRow('1,a,0.5,NaN', 7)).toThrow(
      /^line 7: memory_bytes 'NaN' is not a number: /,
    );
  });
});
