import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { medianOfRuns } from './measure.js';
import { mapMeasured, type Figure } from './report.js';

const SYNTHETIC = { series: 100, days: 30, intervalSeconds: 300 };

/**
 * Wall time of `tandem recommend` as a user runs it: on a synthetic fleet the size of the
 * Bitbrains trace (`tandem synth`, 100 series of 30 days at 5 minutes: 864k rows), which
 * every clone can make, and on the Bitbrains trace itself when `../shared/data` is there.
 */
export async function cliFigures(root: string): Promise<Figure[]> {
  const bin = join(root, 'apps', 'cli', 'bin', 'tandem.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'tandem-bench-cli-'));
  try {
    const synthetic = join(dir, 'usage.csv');
    await run(
      process.execPath,
      [
        bin,
        'synth',
        '--series',
        String(SYNTHETIC.series),
        '--days',
        String(SYNTHETIC.days),
        '--interval-seconds',
        String(SYNTHETIC.intervalSeconds),
      ],
      synthetic,
    );
    const rows =
      (SYNTHETIC.series * SYNTHETIC.days * 86_400) / SYNTHETIC.intervalSeconds;
    const figures: Figure[] = [
      await recommendFigure(
        bin,
        synthetic,
        `tandem recommend, synthetic fleet (tandem synth: ${Math.round(rows / 1000)}k rows, ${SYNTHETIC.series} series)`,
      ),
    ];
    const trace = join(
      root,
      '..',
      'shared',
      'data',
      'traces',
      'bitbrains-rnd-2013-08',
      'usage.csv',
    );
    if (existsSync(trace))
      figures.push(
        await recommendFigure(
          bin,
          trace,
          'tandem recommend, Bitbrains trace (862k rows, 100 series)',
        ),
      );
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function recommendFigure(
  bin: string,
  usage: string,
  name: string,
): Promise<Figure> {
  const wallMs = await medianOfRuns(3, () =>
    run(process.execPath, [
      bin,
      'recommend',
      '--usage',
      usage,
      '--output',
      'json',
    ]),
  );
  return {
    name,
    ...mapMeasured(wallMs, (ms) => ms / 1000),
    unit: 's',
    target: { comparison: '<=', value: 5 },
  };
}

/** Runs a command to its end, its standard output into `outputFile` (or dropped); resolves with its wall time. */
export function run(
  command: string,
  args: readonly string[],
  outputFile?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const output =
      outputFile === undefined ? 'ignore' : openSync(outputFile, 'w');
    const child = spawn(command, args, {
      stdio: ['ignore', output, 'inherit'],
    });
    if (typeof output === 'number') closeSync(output);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(performance.now() - start)
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}
