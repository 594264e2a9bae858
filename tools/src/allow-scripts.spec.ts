import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findWorkspaceRoot } from './workspace-root.js';

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  hasInstallScript?: boolean;
}

const root = findWorkspaceRoot();
const readJson = (file: string) =>
  JSON.parse(readFileSync(join(root, file), 'utf8')) as unknown;

const manifest = readJson('package.json') as {
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, unknown>;
};
const lock = readJson('package-lock.json') as {
  packages: Record<string, LockEntry>;
};
const allowScripts = manifest.allowScripts ?? {};

/**
 * Every installed copy (at any path, on any platform) of a dependency that has an install
 * script, as npm records it in the lock file. The root and the workspaces are left out: npm
 * always runs a project's own scripts.
 */
const withInstallScripts = Object.entries(lock.packages).flatMap(
  ([path, entry]) => {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || !entry.hasInstallScript) return [];
    return [
      {
        name: entry.name ?? path.slice(at + 'node_modules/'.length),
        version: entry.version ?? '',
        resolved: entry.resolved,
      },
    ];
  },
);
const lockedNames = [...new Set(withInstallScripts.map(({ name }) => name))];
const copiesOf = (name: string) =>
  withInstallScripts.filter((copy) => copy.name === name);

/** `pkg`, `@scope/pkg`, `pkg@1.2.3` or `pkg@1.2.3 || 1.2.4`, the forms npm accepts. */
function parseKey(key: string): { name: string; versions?: string[] } {
  const at = key.lastIndexOf('@');
  if (at <= 0) return { name: key };
  return {
    name: key.slice(0, at),
    versions: key
      .slice(at + 1)
      .split('||')
      .map((version) => version.trim()),
  };
}
const entries = Object.entries(allowScripts).map(([key, value]) => ({
  key,
  value,
  ...parseKey(key),
}));

// npm 11.16+ warns about every install script that allowScripts neither allows nor denies,
// and npm 12 skips them; .ci/run fails on that warning (ADR 0011). These checks catch the
// same drift from the lock file alone, for every platform's packages, before CI does.
describe("package.json's allowScripts (install scripts of dependencies)", () => {
  it('covers every locked package with an install script, as allowed or denied', () => {
    const covered = new Set(entries.map(({ name }) => name));
    expect(lockedNames.filter((name) => !covered.has(name))).toEqual([]);
  });

  it('lists nothing that the lock file lacks or that has no install script', () => {
    const stale = entries.filter(
      ({ name, versions }) =>
        copiesOf(name).length === 0 ||
        (versions ?? []).some(
          (version) => !copiesOf(name).some((copy) => copy.version === version),
        ),
    );
    expect(stale.map(({ key }) => key)).toEqual([]);
  });

  it('says true or false, with exact versions only (npm drops ranges and tags)', () => {
    const exact = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
    const malformed = entries.filter(
      ({ value, versions }) =>
        typeof value !== 'boolean' ||
        (versions !== undefined &&
          !versions.every((version) => exact.test(version))),
    );
    expect(malformed.map(({ key }) => key)).toEqual([]);
  });

  it('denies by name (a pinned deny would let every other version run)', () => {
    const pinnedDenials = entries.filter(
      ({ value, versions }) => value === false && versions !== undefined,
    );
    expect(pinnedDenials.map(({ key }) => key)).toEqual([]);
  });

  // npm trusts a version only from the lock file's `resolved` URL. This workspace's lock
  // file is written without them (omit-lockfile-registry-resolved), so a pinned allow
  // would never match; should the URLs come back, every allow must be pinned to each
  // locked version (what `npm install-scripts approve` then writes).
  it('pins an allow to every locked version exactly when npm can verify the pin', () => {
    const wrong = entries
      .filter(({ value }) => value === true)
      .filter(({ name, versions }) => {
        const copies = copiesOf(name);
        const verifiable = copies.every(({ resolved }) =>
          /^https?:\/\//.test(resolved ?? ''),
        );
        if (!verifiable) return versions !== undefined;
        const locked = [...new Set(copies.map(({ version }) => version))];
        return (
          versions === undefined ||
          !locked.every((version) => versions.includes(version))
        );
      });
    expect(wrong.map(({ key }) => key)).toEqual([]);
  });

  it('allows the `node` package, whose preinstall script installs Node.js 24', () => {
    expect(manifest.devDependencies).toHaveProperty('node');
    expect(
      entries.filter(({ name }) => name === 'node').map(({ value }) => value),
    ).toEqual([true]);
  });
});
