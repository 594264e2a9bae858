import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFleet, type SeriesSamples } from '@tandem/replay';
import { configureStrategy, STRATEGIES } from '@tandem/strategies';
import { run } from './cli.bench.js';
import { medianOfRuns } from './measure.js';
import { mapMeasured, type Figure } from './report.js';

const SYNTHETIC = [
  '--series',
  '100',
  '--days',
  '30',
  '--interval-seconds',
  '300',
];

/**
 * `tandem replay`'s speed: samples replayed per second by each strategy in-process (on the
 * Bitbrains trace when `../shared/data` is there, else on a synthetic fleet of its size),
 * and the whole command over both public traces with every strategy, as a user runs it.
 */
export async function replayFigures(root: string): Promise<Figure[]> {
  const bin = join(root, 'apps', 'cli', 'bin', 'tandem.mjs');
  const traces = join(root, '..', 'shared', 'data', 'traces');
  const bitbrains = join(traces, 'bitbrains-rnd-2013-08');
  const google = join(traces, 'google-2019-borg-tasks');
  const dir = mkdtempSync(join(tmpdir(), 'tandem-bench-replay-'));
  try {
    let usage = join(bitbrains, 'usage.csv');
    let label = 'Bitbrains trace';
    if (!existsSync(usage)) {
      usage = join(dir, 'usage.csv');
      label = 'synthetic fleet of the same size';
      await run(process.execPath, [bin, 'synth', ...SYNTHETIC], usage);
    }
    const figures = await strategySpeeds(loadUsage(usage), label);
    if (existsSync(bitbrains) && existsSync(google)) {
      const wallMs = await medianOfRuns(
        3,
        async () =>
          (await run(process.execPath, [
            bin,
            'replay',
            '--usage',
            join(bitbrains, 'usage.csv'),
            '--capacity',
            join(bitbrains, 'capacity.csv'),
            '--output',
            'json',
            '--no-progress',
          ])) +
          (await run(process.execPath, [
            bin,
            'replay',
            '--usage',
            join(google, 'usage-nominal.csv'),
            '--output',
            'json',
            '--no-progress',
          ])),
      );
      figures.push({
        name: 'tandem replay, Bitbrains + Google 2019 traces, every strategy, wall',
        ...mapMeasured(wallMs, (ms) => ms / 1000),
        unit: 's',
        target: { comparison: '<=', value: 10 },
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function strategySpeeds(
  series: Map<string, SeriesSamples>,
  label: string,
): Promise<Figure[]> {
  const samples = [...series.values()].reduce(
    (total, one) => total + one.timesMs.length,
    0,
  );
  const figures: Figure[] = [];
  for (const definition of STRATEGIES) {
    const configured = configureStrategy(definition);
    if ('error' in configured) throw new Error(configured.error);
    const medianMs = await medianOfRuns(3, async () => {
      const started = performance.now();
      replayFleet({ series }, configured.strategy, 'evict');
      return performance.now() - started;
    });
    figures.push({
      name: `replay speed, ${definition.name}, ${label} (evict)`,
      ...mapMeasured(medianMs, (ms) => Math.round(samples / (ms / 1000))),
      unit: 'samples/s',
      target: undefined,
    });
  }
  return figures;
}

/**
 * A usage CSV read for the bench only: the numbers rounded up to whole millicores and
 * bytes as `tandem` reads them, without its checks (the file is known to be good).
 */
function loadUsage(path: string): Map<string, SeriesSamples> {
  const series = new Map<
    string,
    { timesMs: number[]; cpuMillicores: number[]; memoryBytes: number[] }
  >();
  for (const line of readFileSync(path, 'utf8').split('\n').slice(1)) {
    const [seconds, id, cores, bytes] = line.split(',');
    if (id === undefined) continue;
    let one = series.get(id);
    if (one === undefined) {
      one = { timesMs: [], cpuMillicores: [], memoryBytes: [] };
      series.set(id, one);
    }
    one.timesMs.push(Number(seconds) * 1000);
    one.cpuMillicores.push(Math.ceil(Number(cores) * 1000));
    one.memoryBytes.push(Math.ceil(Number(bytes)));
  }
  return series;
}
