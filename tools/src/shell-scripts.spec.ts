import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findWorkspaceRoot } from './workspace-root.js';

const root = findWorkspaceRoot();

function shellScripts(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory())
      return ['node_modules', '.git', 'dist', '.nx'].includes(entry.name)
        ? []
        : shellScripts(path);
    return entry.name.endsWith('.sh') || path.endsWith(join('.ci', 'run'))
      ? [path]
      : [];
  });
}

// The control plane and the kind path are bash: shellcheck is their type checker.
// .ci/run installs it; its absence is a broken setup, not a reason to skip.
describe('shell scripts', () => {
  it.each(shellScripts(root).map((path) => relative(root, path)))(
    '%s passes shellcheck',
    (script) => {
      const result = spawnSync(
        'shellcheck',
        ['--external-sources', '--severity=style', join(root, script)],
        {
          cwd: join(root, script, '..'),
          encoding: 'utf8',
        },
      );
      expect(result.error).toBeUndefined();
      expect({ status: result.status, findings: result.stdout }).toEqual({
        status: 0,
        findings: '',
      });
    },
  );
});
