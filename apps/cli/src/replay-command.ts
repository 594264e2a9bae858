import { writeFile } from 'node:fs/promises';
import { replayFleet, type Fleet, type StrategyReport } from '@tandem/replay';
import type { Command } from './args.js';
import { terminalProgress } from './progress.js';
import { readCapacityFile } from './read-capacity-file.js';
import { readUsageFile } from './read-usage-file.js';
import { renderReplayJson, renderReplayTable } from './render-replay.js';
import { replayPlot } from './replay-plot.js';

type ReplayCommand = Extract<Command, { kind: 'replay' }>;

/** Reads the files, replays every strategy under every apply mode, prints the reports. */
export async function replay(command: ReplayCommand): Promise<void> {
  const reading = command.progress
    ? terminalProgress(`reading ${command.usageFile}`)
    : undefined;
  const series = await readUsageFile(command.usageFile, reading?.update, {
    inTimeOrder: true,
  }).finally(() => reading?.done());
  const fleet: Fleet = {
    series,
    declared:
      command.capacityFile === undefined
        ? undefined
        : await readCapacityFile(command.capacityFile),
  };
  const reports = replayAll(fleet, command);
  process.stdout.write(
    command.output === 'json'
      ? renderReplayJson(reports)
      : renderReplayTable(reports),
  );
  if (command.plotFile !== undefined)
    await writeFile(command.plotFile, replayPlot(fleet, command, reports));
}

function replayAll(fleet: Fleet, command: ReplayCommand): StrategyReport[] {
  const samples = [...fleet.series.values()].reduce(
    (total, series) => total + series.timesMs.length,
    0,
  );
  const runs = command.strategies.flatMap((strategy) =>
    command.apply.map((mode) => ({ strategy, mode })),
  );
  const progress = command.progress ? terminalProgress('replaying') : undefined;
  let done = 0;
  try {
    return runs.map(({ strategy, mode }) =>
      replayFleet(fleet, strategy, mode, (replayed) => {
        done += replayed;
        progress?.update(done, samples * runs.length);
      }),
    );
  } finally {
    progress?.done();
  }
}
