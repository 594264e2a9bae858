import type { StrategyReport } from '@tandem/replay';
import { formatColumns } from './render.js';

/** `{"strategies": [...]}`, one entry per strategy and apply mode, numbers as JSON numbers. */
export function renderReplayJson(reports: readonly StrategyReport[]): string {
  return `${JSON.stringify({ strategies: reports }, null, 2)}\n`;
}

/**
 * One row per strategy and apply mode: fleet totals, relative slack (Autopilot's: slack
 * over request), and the median series' relative slack beside the 95th percentile's.
 */
export function renderReplayTable(reports: readonly StrategyReport[]): string {
  const header = [
    'STRATEGY',
    'APPLY',
    'SERIES',
    'CPU SLACK',
    'CPU SLACK %',
    'MEMORY SLACK',
    'MEMORY SLACK %',
    'CPU SHORTFALL',
    'OOM KILLS',
    'CHANGES',
    'CPU SLACK % P50/P95',
    'MEMORY SLACK % P50/P95',
  ];
  const rows = reports.map((report) => [
    report.name,
    report.apply,
    String(report.series),
    `${fixed(report.totals.cpuSlackCoreHours)}core-h`,
    percent(report.relative.cpuSlack),
    `${fixed(report.totals.memorySlackGiBHours)}GiB-h`,
    percent(report.relative.memorySlack),
    `${fixed(report.totals.cpuShortfallCoreHours)}core-h`,
    String(report.totals.oomEvents),
    String(report.totals.requestChanges),
    `${percent(report.median.cpuSlack)}/${percent(report.p95.cpuSlack)}`,
    `${percent(report.median.memorySlack)}/${percent(report.p95.memorySlack)}`,
  ]);
  return formatColumns([header, ...rows]);
}

function fixed(value: number): string {
  return value.toFixed(1);
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
