// Jest environment for the e2e suites: when a test or hook fails, print the tail of
// every component log of the local control plane (and of Tandem's apps, which log to
// the same directory), so a red CI run explains itself without a rerun.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const TAIL_LINES = 40;

function tail(path) {
  try {
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    return lines.slice(-TAIL_LINES).join('\n');
  } catch (error) {
    return `(unreadable: ${error.message})`;
  }
}

class LogOnFailureEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure')
      return;
    const logDir = process.env.TANDEM_E2E_LOG_DIR;
    if (!logDir) return;
    const what = event.test ? event.test.name : event.hook.type;
    let report = `\n[e2e] '${what}' failed; last ${TAIL_LINES} lines of each component log in ${logDir}:\n`;
    for (const file of readdirSync(logDir).sort()) {
      report += `\n----- ${file} -----\n${tail(join(logDir, file))}\n`;
    }
    process.stderr.write(report);
  }
}

module.exports = LogOnFailureEnvironment;
