// Only the side-by-side benchmark with upstream's Go histogram (`npm run bench` runs it
// too): `npx nx run tools:build && node --expose-gc tools/dist/bench/go-side-by-side.main.js`.
import { arch, cpus } from 'node:os';
import { findWorkspaceRoot } from '../workspace-root.js';
import { goSideBySideFigures } from './go-side-by-side.bench.js';
import { formatFigures, meetsTarget } from './report.js';

const figures = await goSideBySideFigures(findWorkspaceRoot());
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${arch()}, Node ${process.versions.node}`;
process.stdout.write(
  `Side by side with upstream's Go histogram (${machine})\n\n${formatFigures(figures)}\n`,
);
if (!figures.every(meetsTarget)) process.exitCode = 1;
