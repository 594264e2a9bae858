// `npm run bench`: every speed and memory target of the project, measured on the built
// packages (what production runs), printed as a table with the target each must meet.
// `npm run bench -- <group> ...` runs only the groups named (see `groups` for the names).
import { arch, cpus, loadavg, totalmem } from 'node:os';
import { findWorkspaceRoot } from '../workspace-root.js';
import { admissionWebhookFigures } from './admission-webhook.bench.js';
import { cliFigures } from './cli.bench.js';
import { dashboardFigures } from './dashboard.bench.js';
import { dashboardServedFigures } from './dashboard-served.bench.js';
import { goSideBySideFigures } from './go-side-by-side.bench.js';
import { histogramFigures } from './histogram.bench.js';
import { metricsAdapterScaleFigures } from './metrics-adapter-scale.bench.js';
import { metricsAdapterFigures } from './metrics-adapter.bench.js';
import { recommendationFigures } from './recommend.bench.js';
import { recommenderCycleFigures } from './recommender-cycle.bench.js';
import { recommenderPodCacheFigures } from './recommender-pod-cache.bench.js';
import { recommenderScaleFigures } from './recommender-scale.bench.js';
import { recommenderStartupFigures } from './recommender-startup.bench.js';
import { replayFigures } from './replay.bench.js';
import { updaterCycleFigures } from './updater-cycle.bench.js';
import {
  formatFigures,
  machineLoad,
  meetsTarget,
  type Figure,
} from './report.js';

const root = findWorkspaceRoot();
const groups: [string, () => Promise<Figure[]>][] = [
  ['histogram', histogramFigures],
  ['go-side-by-side', () => goSideBySideFigures(root)],
  ['recommend', recommendationFigures],
  ['recommender-cycle', recommenderCycleFigures],
  ['recommender-scale', recommenderScaleFigures],
  ['recommender-pod-cache', recommenderPodCacheFigures],
  ['updater-cycle', updaterCycleFigures],
  ['cli', () => cliFigures(root)],
  ['replay', () => replayFigures(root)],
  ['recommender-startup', () => recommenderStartupFigures(root)],
  ['admission-webhook', () => admissionWebhookFigures(root)],
  ['metrics-adapter', () => metricsAdapterFigures(root)],
  ['metrics-adapter-scale', () => metricsAdapterScaleFigures(root)],
  ['dashboard', dashboardFigures],
  ['dashboard-served', () => dashboardServedFigures(root)],
];
const only = process.argv.slice(2);
const unknown = only.filter(
  (name) => !groups.some(([group]) => group === name),
);
if (unknown.length > 0)
  throw new Error(
    `no benchmark group ${unknown.join(', ')}; the groups: ${groups.map(([group]) => group).join(', ')}`,
  );
const startLoad = loadavg()[0] ?? 0;
const figures: Figure[] = [];
for (const [group, measure] of groups)
  if (only.length === 0 || only.includes(group))
    figures.push(...(await measure()));
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${arch()}, Node ${process.versions.node}`;
const load = machineLoad(startLoad, loadavg()[0] ?? 0, cpus().length);
process.stdout.write(
  `Tandem benchmarks (${machine}; ${load.summary})\n\n${formatFigures(figures)}\n`,
);
if (load.warning !== undefined) process.stdout.write(`\n${load.warning}\n`);
const missed = figures.filter((figure) => !meetsTarget(figure));
if (missed.length > 0) {
  process.stdout.write(`\n${missed.length} target(s) missed.\n`);
  process.exitCode = 1;
}
