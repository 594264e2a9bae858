import { randomBytes } from 'node:crypto';
import {
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificatePair } from './certificates.js';

export interface CertificateFiles {
  readonly caCertFile: string;
  readonly caKeyFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Writes `caCert.pem`, `caKey.pem`, `serverCert.pem` and `serverKey.pem` (upstream's
 * names) into `dir`, creating it if needed. Keys get mode 0600, certificates 0644.
 *
 * Each file is written to a temporary name and renamed into place, so a server watching
 * the directory never reads half a file. The pair is still two renames: key first, then
 * certificate; a watching server sees a mismatched pair in between and keeps its current
 * one until the certificate lands.
 */
export async function writeCertificateFiles(
  dir: string,
  files: { ca: CertificatePair; serving: CertificatePair },
): Promise<CertificateFiles> {
  await mkdir(dir, { recursive: true });
  const paths: CertificateFiles = {
    caCertFile: join(dir, 'caCert.pem'),
    caKeyFile: join(dir, 'caKey.pem'),
    certFile: join(dir, 'serverCert.pem'),
    keyFile: join(dir, 'serverKey.pem'),
  };
  await writeAtomically(paths.caKeyFile, files.ca.keyPem, 0o600);
  await writeAtomically(paths.caCertFile, files.ca.certPem, 0o644);
  await writeAtomically(paths.keyFile, files.serving.keyPem, 0o600);
  await writeAtomically(paths.certFile, files.serving.certPem, 0o644);
  return paths;
}

/** A file's contents and mode, for `writeFileSet`. */
export interface FileContents {
  readonly contents: string;
  readonly mode: number;
}

const DATA_LINK = '..data';

/**
 * Replaces a set of files in `dir` at once, the way the kubelet updates a Secret volume
 * (its AtomicWriter): the files go into a new hidden directory, the `..data` symlink is
 * swapped to it with one rename, and each name is a symlink through `..data`. A reader
 * opening two of the files (a server loading its key and certificate) gets both old or
 * both new, except when the swap falls between its two opens; the per-file renames of
 * `writeCertificateFiles` leave a longer window. Earlier versions are removed afterwards.
 */
export async function writeFileSet(
  dir: string,
  files: Readonly<Record<string, FileContents>>,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const version = `..${Date.now()}_${randomBytes(4).toString('hex')}`;
  await mkdir(join(dir, version), { mode: 0o755 });
  for (const [name, file] of Object.entries(files))
    await writeFile(join(dir, version, name), file.contents, {
      mode: file.mode,
      flag: 'wx',
    });
  await replaceAtomically(join(dir, DATA_LINK), (temporary) =>
    symlink(version, temporary),
  );
  for (const name of Object.keys(files)) {
    const target = join(DATA_LINK, name);
    const link = join(dir, name);
    if ((await readlink(link).catch(() => undefined)) !== target)
      await replaceAtomically(link, (temporary) => symlink(target, temporary));
  }
  for (const entry of await readdir(dir))
    if (/^\.\.\d+_[0-9a-f]+$/.test(entry) && entry !== version)
      await rm(join(dir, entry), { recursive: true, force: true });
}

function writeAtomically(
  path: string,
  contents: string,
  mode: number,
): Promise<void> {
  return replaceAtomically(path, (temporary) =>
    writeFile(temporary, contents, { mode, flag: 'wx' }),
  );
}

/** Makes `path` anew under a temporary name, then renames it into place. */
async function replaceAtomically(
  path: string,
  make: (temporary: string) => Promise<void>,
): Promise<void> {
  // Same directory, so the rename stays on one filesystem and is atomic.
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await make(temporary);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
