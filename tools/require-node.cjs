#!/usr/bin/env node
// Every npm script starts with this check. `npm ci` installs Node 24 from the npm
// registry (the `node` devDependency) into node_modules/.bin, which npm puts first on
// PATH for scripts; if that did not happen we stop here with the fix rather than fail
// later with an obscure syntax or API error from an older runtime.
'use strict';
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  process.stderr.write(
    `Tandem needs Node.js ${REQUIRED_MAJOR} or newer, but this is Node.js ${process.versions.node} (${process.execPath}).\n` +
      'Run `npm ci` in the repository root: it installs Node.js 24 into node_modules/.bin, ' +
      'and every `npm run <script>` / `npx <bin>` uses it from there.\n',
  );
  process.exit(1);
}
