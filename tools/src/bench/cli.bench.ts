import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { medianOfRuns } from './measure.js';
import type { Figure } from './report.js';

/** Wall time of `tandem recommend` on the 26 MB Bitbrains trace, as a user runs it. */
export async function cliFigures(root: string): Promise<Figure[]> {
  const trace = join(
    root,
    '..',
    'shared',
    'data',
    'traces',
    'bitbrains-rnd-2013-08',
    'usage.csv',
  );
  if (!existsSync(trace)) {
    process.stderr.write(
      `skipping the tandem recommend benchmark: ${trace} is not there\n`,
    );
    return [];
  }
  const bin = join(root, 'apps', 'cli', 'bin', 'tandem.mjs');
  const wallMs = await medianOfRuns(3, () =>
    timeRun(process.execPath, [
      bin,
      'recommend',
      '--usage',
      trace,
      '--output',
      'json',
    ]),
  );
  return [
    {
      name: 'tandem recommend, Bitbrains trace (862k rows, 100 series)',
      value: wallMs / 1000,
      unit: 's',
      target: { comparison: '<=', value: 5 },
    },
  ];
}

function timeRun(command: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(performance.now() - start)
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}
