#!/usr/bin/env node
// Entry point of the dashboard. The version check comes first, so an old runtime stops
// with the fix instead of a stack trace.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `tandem-dashboard needs Node.js 24 or newer (this is ${process.versions.node}).\n`,
  );
  process.exit(1);
}
const { readFile } = await import('node:fs/promises');
const manifest = JSON.parse(
  await readFile(new URL('../package.json', import.meta.url), 'utf8'),
);
const { main } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2), manifest.version);
