import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configureStrategy, upstream } from '@tandem/strategies';
import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { readUsageFile } from './read-usage-file.js';

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

describe('tandem replay', () => {
  /** A synthetic trace of five series at 15-minute samples. */
  function synthFile(name: string, days: number): string {
    const synth = tandem(
      'synth',
      '--seed',
      '5',
      '--series',
      '5',
      '--days',
      String(days),
      '--interval-seconds',
      '900',
    );
    expect(synth.status).toBe(0);
    const path = join(scratch, name);
    writeFileSync(path, synth.stdout);
    return path;
  }

  it('prints {"strategies": [...]} as JSON numbers, the same twice', () => {
    const path = synthFile('replay.csv', 3);
    const args = ['replay', '--usage', path, '--output', 'json'];
    const first = tandem(
      ...args,
      '--strategy',
      'upstream',
      '--strategy',
      'autopilot:margin=0.1',
      '--apply',
      'evict',
      '--apply',
      'in-place',
    );
    expect({ status: first.status, stderr: first.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    const again = tandem(
      ...args,
      '--strategy',
      'upstream',
      '--strategy',
      'autopilot:margin=0.1',
      '--apply',
      'evict',
      '--apply',
      'in-place',
    );
    expect(again.stdout).toBe(first.stdout);
    const document = JSON.parse(first.stdout) as {
      strategies: {
        name: string;
        apply: string;
        parameters: Record<string, unknown>;
        series: number;
        unscored: string[];
        totals: Record<string, unknown>;
        relative: Record<string, unknown>;
        median: Record<string, unknown>;
        p95: Record<string, unknown>;
        perSeries: Record<string, unknown>[];
      }[];
    };
    expect(Object.keys(document)).toEqual(['strategies']);
    expect(
      document.strategies.map((s) => [s.name, s.apply, s.series, s.unscored]),
    ).toEqual([
      ['upstream', 'evict', 5, []],
      ['upstream', 'in-place', 5, []],
      ['autopilot', 'evict', 5, []],
      ['autopilot', 'in-place', 5, []],
    ]);
    expect(document.strategies[2]?.parameters['margin']).toBe(0.1);
    for (const report of document.strategies) {
      for (const figures of [
        report.totals,
        report.relative,
        report.median,
        report.p95,
        ...report.perSeries.map(({ seriesId: _, ...rest }) => rest),
      ])
        for (const value of Object.values(figures))
          expect(typeof value).toBe('number');
      // Three days: one day of warm-up.
      expect(report.perSeries.map((s) => s['warmupHours'])).toEqual([
        24, 24, 24, 24, 24,
      ]);
    }
  });

  it('lists upstream, autopilot, vivo and static', () => {
    const result = tandem('replay', '--list-strategies');
    expect(result.status).toBe(0);
    const names = result.stdout
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(' ')[0]);
    expect(names).toEqual(
      expect.arrayContaining(['static', 'upstream', 'autopilot', 'vivo']),
    );
    expect(names[0]).toBe('static');
    expect(result.stdout).toMatch(/^ +margin=0\.15 +fraction added on top/m);
  });

  it('names the file and line of a malformed row, exit code 1', () => {
    const path = usageFile('replay-broken.csv', [
      '1700000000,a,0.5,100',
      '1700000060,a,0.5,100,7',
    ]);
    const result = tandem('replay', '--usage', path, '--no-progress');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `tandem: ${path}: line 3: expected 4 comma-separated fields, found 5\n`,
    );
  });

  it('refuses time going backwards in a series, naming it', () => {
    const path = usageFile('replay-backwards.csv', [
      '1700000060,a,0.5,100',
      '1700000000,b,0.5,100',
      '1700000000,a,0.5,100',
    ]);
    const result = tandem('replay', '--usage', path, '--no-progress');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `tandem: ${path}: line 4: time goes backwards in series 'a': 1700000000 s after 1700000060 s\n`,
    );
  });

  it('names the capacity file of a malformed capacity row', () => {
    const usage = usageFile('replay-ok.csv', steadyDay('a', '0.5', 1000));
    const capacity = join(scratch, 'capacity-broken.csv');
    writeFileSync(
      capacity,
      'timestamp_s,series_id,cpu_cores,memory_bytes\n1700000000,a,-1,1Gi\n',
    );
    const result = tandem(
      'replay',
      '--usage',
      usage,
      '--capacity',
      capacity,
      '--no-progress',
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `tandem: ${capacity}: line 2: cpu_cores '-1' is negative\n`,
    );
  });

  it('explains the static baseline without a capacity file, exit code 2', () => {
    const result = tandem('replay', '--usage', 'u.csv', '--strategy', 'static');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^tandem: the static baseline needs --capacity <file\.csv>\n/,
    );
  });

  it("the upstream strategy's model, fed every sample, recommends exactly what tandem recommend prints", async () => {
    const path = synthFile('compat.csv', 9);
    const result = tandem('recommend', '--usage', path, '--output', 'json');
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<
      string,
      Record<
        'target' | 'lowerBound' | 'upperBound',
        { cpu: string; memory: string }
      >
    >;
    const configured = configureStrategy(upstream);
    if ('error' in configured) throw new Error(configured.error);
    const series = await readUsageFile(path, undefined, { inTimeOrder: true });
    expect([...series.keys()].sort()).toEqual(Object.keys(printed).sort());
    for (const [seriesId, samples] of series) {
      const model = configured.strategy.model(samples.timesMs[0] ?? 0);
      samples.timesMs.forEach((timeMs, i) =>
        model.addUsage(
          timeMs,
          samples.cpuMillicores[i] ?? 0,
          samples.memoryBytes[i] ?? 0,
        ),
      );
      const recommendation = model.recommend(
        samples.timesMs.at(-1) ?? 0,
        undefined,
      );
      const quantities = printed[seriesId];
      if (quantities === undefined) throw new Error(`no ${seriesId}`);
      const amounts = (which: 'target' | 'lowerBound' | 'upperBound') => ({
        cpu: parseCpuMillicores(quantities[which].cpu),
        memory: parseMemoryBytes(quantities[which].memory),
      });
      expect({ seriesId, ...recommendation }).toEqual({
        seriesId,
        target: amounts('target'),
        lowerBound: amounts('lowerBound'),
        upperBound: amounts('upperBound'),
      });
    }
  });
});
