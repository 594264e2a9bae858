import type { Fleet, StrategyReport } from '@tandem/replay';
import type { Command } from './args.js';

export function replayPlot(
  _fleet: Fleet,
  _command: Extract<Command, { kind: 'replay' }>,
  _reports: readonly StrategyReport[],
): string {
  return '<svg xmlns="http://www.w3.org/2000/svg"/>';
}
