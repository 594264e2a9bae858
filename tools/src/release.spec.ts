import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from './workspace-root.js';

const root = findWorkspaceRoot();
const apps = readdirSync(join(root, 'apps'));
const quietEnv = {
  ...process.env,
  NX_DAEMON: 'false',
  NX_TUI: 'false',
  NX_NO_CLOUD: 'true',
  FORCE_COLOR: '0',
};

/**
 * The release configuration is checked in a throwaway clone of the committed tree, so
 * the answer depends only on nx.json and on commits the test makes itself: one `feat`
 * commit per app, which must give each app its own minor bump, changelog and tag.
 */
describe('independent releases (nx release --dry-run)', () => {
  let clone: string;
  let output: string;

  beforeAll(() => {
    clone = join(mkdtempSync(join(tmpdir(), 'tandem-release-')), 'repo');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: clone,
        env: quietEnv,
        encoding: 'utf8',
      });
    execFileSync('git', ['clone', '--quiet', root, clone]);
    symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
    git('config', 'user.email', 'release-test@tandem.invalid');
    git('config', 'user.name', 'release test');
    for (const app of apps) {
      appendFileSync(
        join(clone, 'apps', app, 'README.md'),
        '\nA change worth releasing.\n',
      );
      git('add', '-A');
      git('commit', '--quiet', '-m', `feat(${app}): a change worth releasing`);
    }
    const release = spawnSync(
      join(clone, 'node_modules', '.bin', 'nx'),
      ['release', '--dry-run', '--skip-publish', '--verbose'],
      { cwd: clone, env: quietEnv, encoding: 'utf8' },
    );
    output = release.stdout + release.stderr;
    if (release.status !== 0)
      throw new Error(`nx release --dry-run failed:\n${output}`);
  }, 120_000);

  afterAll(() => rmSync(join(clone, '..'), { recursive: true, force: true }));

  it.each(apps)(
    'plans a new version, a changelog and an <app>@<version> tag for %s',
    (app) => {
      const manifest = `apps/${app}/package.json`;
      const current = (
        JSON.parse(readFileSync(join(root, manifest), 'utf8')) as {
          version: string;
        }
      ).version;
      const planned = new RegExp(
        `${app} .*New version (\\d+\\.\\d+\\.\\d+) written to manifest: ${manifest}`,
      ).exec(output)?.[1];
      expect(planned).toBeDefined();
      expect(planned).not.toBe(current);
      expect(output).toContain(
        `Previewing an entry in apps/${app}/CHANGELOG.md for ${app}@${planned}`,
      );
      expect(output).toContain(
        `git tag --annotate ${app}@${planned} --message ${app}@${planned}`,
      );
    },
  );

  it('changes nothing', () => {
    expect(output).toContain(
      'NOTE: The "dryRun" flag means no changes were made.',
    );
  });
});
