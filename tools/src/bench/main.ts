// `npm run bench`: every speed and memory target of the project, measured on the built
// packages (what production runs), printed as a table with the target each must meet.
import { arch, cpus, totalmem } from 'node:os';
import { findWorkspaceRoot } from '../workspace-root.js';
import { admissionWebhookFigures } from './admission-webhook.bench.js';
import { cliFigures } from './cli.bench.js';
import { goSideBySideFigures } from './go-side-by-side.bench.js';
import { histogramFigures } from './histogram.bench.js';
import { metricsAdapterFigures } from './metrics-adapter.bench.js';
import { recommendationFigures } from './recommend.bench.js';
import { recommenderCycleFigures } from './recommender-cycle.bench.js';
import { recommenderStartupFigures } from './recommender-startup.bench.js';
import { updaterCycleFigures } from './updater-cycle.bench.js';
import { formatFigures, meetsTarget, type Figure } from './report.js';

const figures: Figure[] = [
  ...(await histogramFigures()),
  ...(await goSideBySideFigures(findWorkspaceRoot())),
  ...(await recommendationFigures()),
  ...(await recommenderCycleFigures()),
  ...(await updaterCycleFigures()),
  ...(await cliFigures(findWorkspaceRoot())),
  ...(await recommenderStartupFigures(findWorkspaceRoot())),
  ...(await admissionWebhookFigures(findWorkspaceRoot())),
  ...(await metricsAdapterFigures(findWorkspaceRoot())),
];
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${arch()}, Node ${process.versions.node}`;
process.stdout.write(
  `Tandem benchmarks (${machine})\n\n${formatFigures(figures)}\n`,
);
const missed = figures.filter((figure) => !meetsTarget(figure));
if (missed.length > 0) {
  process.stdout.write(`\n${missed.length} target(s) missed.\n`);
  process.exitCode = 1;
}
