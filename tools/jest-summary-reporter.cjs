// Jest reporter: when TANDEM_TEST_SUMMARY names a file, appends this project's totals to
// it as one JSON line, so .ci/run can close with one "N passed, N failed" line for the
// whole workspace (Nx runs one Jest per project).
'use strict';
const { appendFileSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.TANDEM_TEST_SUMMARY;
    if (!file) return;
    const line = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
}

module.exports = SummaryReporter;
