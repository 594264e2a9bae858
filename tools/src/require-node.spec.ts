import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from './workspace-root.js';

const guard = join(findWorkspaceRoot(), 'tools', 'require-node.cjs');

/** Runs the guard on this Node binary while it reports another version. */
function runGuardAs(version: string) {
  const preload = join(
    mkdtempSync(join(tmpdir(), 'tandem-node-')),
    'pretend-version.cjs',
  );
  writeFileSync(
    preload,
    `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } });`,
  );
  return spawnSync(process.execPath, ['--require', preload, guard], {
    encoding: 'utf8',
  });
}

describe('the Node version guard every npm script starts with', () => {
  it('stops an older Node with the fix', () => {
    const result = runGuardAs('20.20.2');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'Tandem needs Node.js 24 or newer, but this is Node.js 20.20.2',
    );
    expect(result.stderr).toContain('Run `npm ci` in the repository root');
  });

  it('lets Node 24 and newer through silently', () => {
    for (const version of ['24.0.0', '26.1.0']) {
      const result = runGuardAs(version);
      expect({ status: result.status, stderr: result.stderr }).toEqual({
        status: 0,
        stderr: '',
      });
    }
  });

  it('is what npm scripts actually run on: this test runs on Node 24+', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(
      24,
    );
  });
});
