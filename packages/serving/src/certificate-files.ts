import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
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

async function writeAtomically(
  path: string,
  contents: string,
  mode: number,
): Promise<void> {
  // Same directory, so the rename stays on one filesystem and is atomic.
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, contents, { mode, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
