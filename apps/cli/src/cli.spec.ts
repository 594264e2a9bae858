import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// These tests run the built command as a user would (Nx builds it before `cli:test`).
const bin = resolve(import.meta.dirname, '..', 'bin', 'tandem.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'tandem-cli-'));

function tandem(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

function usageFile(name: string, rows: readonly string[]): string {
  const path = join(scratch, name);
  writeFileSync(
    path,
    ['timestamp_s,series_id,cpu_cores,memory_bytes', ...rows, ''].join('\n'),
  );
  return path;
}

/** A steady container reporting every minute for 24 hours (reference vector 15). */
function steadyDay(
  seriesId: string,
  cores: string,
  memoryBytes: number,
): string[] {
  const t0 = 1_700_000_040;
  return Array.from(
    { length: 1440 },
    (_, minute) => `${t0 + 60 * minute},${seriesId},${cores},${memoryBytes}`,
  );
}

describe('tandem recommend', () => {
  it('reproduces the steady-workload and fresh-pod vectors exactly (--output json)', () => {
    const path = usageFile('vectors.csv', [
      ...steadyDay('steady-500Mi', '0.5', 524288000),
      ...steadyDay('steady-200Mi', '0.5', 209715200),
      '1700000000,fresh,0.5,524288000',
    ]);
    const result = tandem('recommend', '--usage', path, '--output', 'json');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      'steady-500Mi': {
        target: { cpu: '587m', memory: '628694953' },
        lowerBound: { cpu: '585m', memory: '627438575' },
        upperBound: { cpu: '1174m', memory: '1257826803' },
      },
      'steady-200Mi': {
        target: { cpu: '587m', memory: '250Mi' },
        lowerBound: { cpu: '585m', memory: '250Mi' },
        upperBound: { cpu: '1174m', memory: '496479408' },
      },
      fresh: {
        target: { cpu: '587m', memory: '628694953' },
        lowerBound: { cpu: '25m', memory: '250Mi' },
        upperBound: { cpu: '100G', memory: '97656250000Ki' },
      },
    });
  });

  it('feeds samples in time order even when the file is not sorted', () => {
    const rows = steadyDay('steady', '0.5', 524288000);
    const sorted = tandem(
      'recommend',
      '--usage',
      usageFile('sorted.csv', rows),
      '--output',
      'json',
    );
    const shuffled = tandem(
      'recommend',
      '--usage',
      usageFile('reversed.csv', [...rows].reverse()),
      '--output',
      'json',
    );
    expect(shuffled.status).toBe(0);
    expect(shuffled.stdout).toBe(sorted.stdout);
  });

  it('prints an aligned table of quantities as kubectl shows them', () => {
    const path = usageFile('table.csv', [
      ...steadyDay('web', '0.5', 524288000),
      ...steadyDay('worker', '0.5', 209715200),
    ]);
    const result = tandem('recommend', '--usage', path);
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^SERIES\s+SAMPLES\s+TARGET CPU\s+TARGET MEMORY\s+LOWER CPU/,
    );
    expect(lines.slice(1).map((line) => line.split(/\s+/))).toEqual([
      [
        'web',
        '1440',
        '587m',
        '628694953',
        '585m',
        '627438575',
        '1174m',
        '1257826803',
      ],
      [
        'worker',
        '1440',
        '587m',
        '250Mi',
        '585m',
        '250Mi',
        '1174m',
        '496479408',
      ],
    ]);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
  });

  it('names the line of a malformed row and prints nothing on stdout', () => {
    const path = usageFile('broken.csv', [
      '1700000000,a,0.5,100',
      '1700000060,a,half,100',
    ]);
    const result = tandem('recommend', '--usage', path);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^tandem: .*broken\.csv: line 3: cpu_cores 'half' is not a number/,
    );
  });

  it('explains a missing file and a wrong option', () => {
    const missing = tandem('recommend', '--usage', join(scratch, 'nope.csv'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^tandem: cannot read .*nope\.csv: ENOENT/);
    const misuse = tandem('recommend', '--usage', 'x.csv', '--output', 'yaml');
    expect(misuse.status).toBe(2);
    expect(misuse.stderr).toContain(
      "--output must be one of table, json, not 'yaml'",
    );
  });
});
