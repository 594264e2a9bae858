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

  it('prints an aligned table, memory in binary units (the JSON keeps exact bytes)', () => {
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
      ['web', '1440', '587m', '599.6Mi', '585m', '598.4Mi', '1174m', '1.171Gi'],
      ['worker', '1440', '587m', '250Mi', '585m', '250Mi', '1174m', '473.5Mi'],
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

describe('tandem synth', () => {
  it('writes the same trace for the same seed, which tandem recommend reads', () => {
    const args = ['synth', '--seed', '3', '--series', '5', '--days', '9'];
    const first = tandem(...args, '--interval-seconds', '600');
    const again = tandem(...args, '--interval-seconds', '600');
    expect({ status: first.status, stderr: first.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    expect(again.stdout).toBe(first.stdout);
    const path = join(scratch, 'synth.csv');
    writeFileSync(path, first.stdout);
    const result = tandem('recommend', '--usage', path, '--output', 'json');
    expect(result.status).toBe(0);
    const document = JSON.parse(result.stdout) as Record<
      string,
      { target: { cpu: string; memory: string } }
    >;
    expect(Object.keys(document).sort()).toEqual([
      'batch-001',
      'idle-004',
      'leak-002',
      'step-003',
      'web-000',
    ]);
    // 9 days at 10 minutes: 1,296 samples a series.
    const table = tandem('recommend', '--usage', path, '--no-progress');
    expect(table.stdout).toMatch(/^web-000\s+1296\s/m);
  });

  it('refuses a value out of range, naming the flag', () => {
    const result = tandem('synth', '--days', '0');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      "--days must be a whole number from 1 to 366, not '0'",
    );
  });
});
