import {
  lstat,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCertificateFiles, writeFileSet } from './certificate-files.js';

// writeCertificateFiles does not parse PEM, so placeholders keep this test fast.
const files = (version: string) => ({
  ca: { certPem: `ca cert ${version}\n`, keyPem: `ca key ${version}\n` },
  serving: {
    certPem: `serving cert ${version}\n`,
    keyPem: `serving key ${version}\n`,
  },
});

describe('writeCertificateFiles', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'serving-files-'));
  });

  afterEach(() => rm(root, { recursive: true, force: true }));

  it("writes upstream's file names, keys private, and returns the paths", async () => {
    const dir = join(root, 'tls-certs');
    const paths = await writeCertificateFiles(dir, files('1'));
    expect(paths).toEqual({
      caCertFile: join(dir, 'caCert.pem'),
      caKeyFile: join(dir, 'caKey.pem'),
      certFile: join(dir, 'serverCert.pem'),
      keyFile: join(dir, 'serverKey.pem'),
    });
    expect((await readdir(dir)).sort()).toEqual([
      'caCert.pem',
      'caKey.pem',
      'serverCert.pem',
      'serverKey.pem',
    ]);
    expect(await readFile(paths.caCertFile, 'utf8')).toBe('ca cert 1\n');
    expect(await readFile(paths.caKeyFile, 'utf8')).toBe('ca key 1\n');
    expect(await readFile(paths.certFile, 'utf8')).toBe('serving cert 1\n');
    expect(await readFile(paths.keyFile, 'utf8')).toBe('serving key 1\n');
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(paths.caKeyFile)).toBe(0o600);
    expect(await mode(paths.keyFile)).toBe(0o600);
    expect((await mode(paths.certFile)) & 0o600).toBe(0o600);
  });

  it('replaces existing files by rename, leaving no temporary files', async () => {
    const first = await writeCertificateFiles(root, files('1'));
    const before = await stat(first.certFile);
    const second = await writeCertificateFiles(root, files('2'));
    expect(second).toEqual(first);
    expect(await readFile(second.certFile, 'utf8')).toBe('serving cert 2\n');
    // A new inode: readers of the old file never saw it truncated.
    expect((await stat(second.certFile)).ino).not.toBe(before.ino);
    expect(await readdir(root)).toHaveLength(4);
  });
});

describe('writeFileSet', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'serving-file-set-'));
  });

  afterEach(() => rm(root, { recursive: true, force: true }));

  const set = (version: string) => ({
    'serverCert.pem': { contents: `cert ${version}\n`, mode: 0o644 },
    'serverKey.pem': { contents: `key ${version}\n`, mode: 0o600 },
  });

  it('swaps every file at once through ..data, replacing plain files and old versions', async () => {
    // A plain file left by an earlier writer is replaced by the link.
    await writeFile(join(root, 'serverCert.pem'), 'plain\n');
    await writeFileSet(root, set('1'));
    const firstTarget = (await stat(join(root, 'serverKey.pem'))).ino;
    await writeFileSet(root, set('2'));
    expect(await readFile(join(root, 'serverCert.pem'), 'utf8')).toBe(
      'cert 2\n',
    );
    expect(await readFile(join(root, 'serverKey.pem'), 'utf8')).toBe('key 2\n');
    expect((await lstat(join(root, 'serverCert.pem'))).isSymbolicLink()).toBe(
      true,
    );
    expect((await stat(join(root, 'serverKey.pem'))).ino).not.toBe(firstTarget);
    expect((await stat(join(root, 'serverKey.pem'))).mode & 0o777).toBe(0o600);
    const entries = await readdir(root);
    // ..data, one version directory, the two links: nothing temporary, no old version.
    expect(entries).toHaveLength(4);
    expect(entries.filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
  });
});
