#!/usr/bin/env node
// Sums the per-project totals that tools/jest-summary-reporter.cjs appended to the file
// given as the first argument, and prints the workspace's closing line.
'use strict';
const { readFileSync } = require('node:fs');

const total = { passed: 0, failed: 0, skipped: 0 };
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
for (const line of lines) {
  for (const [key, value] of Object.entries(JSON.parse(line)))
    total[key] += value;
}
console.log(
  `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`,
);
