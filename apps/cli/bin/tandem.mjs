#!/usr/bin/env node
// Entry point of the `tandem` command. The version check comes before anything that
// might use a newer API, so an old runtime stops with the fix instead of a stack trace.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `tandem needs Node.js 24 or newer (this is ${process.versions.node}). ` +
      'From the repository, run `npm ci` and then `npx tandem ...`: npx uses the Node.js 24 that npm ci installs.\n',
  );
  process.exit(1);
}
const { main } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2));
