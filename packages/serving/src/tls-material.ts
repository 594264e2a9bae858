import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { errorMessage } from './error-message.js';

export interface TlsFilePaths {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCaFile?: string;
}

export interface TlsSettings {
  readonly minVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly ciphers?: string;
}

/** The PEM contents of the files, as read, and a digest of all of them. */
export interface TlsFiles {
  readonly certPem: string;
  readonly keyPem: string;
  readonly clientCaPem?: string;
  /** Changes whenever any of the contents does. */
  readonly digest: string;
}

/** Files that passed every check, with what `setSecureContext` needs to serve them. */
export interface TlsMaterial extends TlsFiles {
  readonly certificate: X509Certificate;
  readonly contextOptions: SecureContextOptions;
}

/** Reads the files; rejects naming the file that could not be read and why. */
export async function readTlsFiles(paths: TlsFilePaths): Promise<TlsFiles> {
  const [certPem, keyPem, clientCaPem] = await Promise.all([
    readPem('certificate file', paths.certFile),
    readPem('key file', paths.keyFile),
    paths.clientCaFile === undefined
      ? undefined
      : readPem('client CA file', paths.clientCaFile),
  ]);
  const hash = createHash('sha256');
  for (const pem of [certPem, keyPem, clientCaPem ?? '']) {
    // Length-prefixed, so moving text from one file to the next changes the digest.
    hash.update(`${pem.length}:`).update(pem);
  }
  return { certPem, keyPem, clientCaPem, digest: hash.digest('hex') };
}

/**
 * Checks the files the way a TLS server would use them and throws with the precise
 * reason, naming the file, when they cannot be served: a certificate or key that does
 * not parse, a key that does not belong to the certificate (the usual state half-way
 * through a rotation that writes one file after the other), a client CA file without a
 * certificate (OpenSSL would silently trust nothing), or anything OpenSSL refuses.
 */
export function validateTlsFiles(
  paths: TlsFilePaths,
  files: TlsFiles,
  settings: TlsSettings,
): TlsMaterial {
  const certificate = parse(
    `certificate file ${paths.certFile} holds no valid PEM certificate`,
    () => new X509Certificate(files.certPem),
  );
  const key = parse(
    `key file ${paths.keyFile} holds no valid PEM private key`,
    () => createPrivateKey(files.keyPem),
  );
  if (!certificate.checkPrivateKey(key)) {
    throw new Error(
      `private key in ${paths.keyFile} does not match the certificate in ${paths.certFile} (subject ${certificate.subject.replaceAll('\n', ', ')}, serial ${certificate.serialNumber})`,
    );
  }
  if (files.clientCaPem !== undefined) {
    const blocks = pemCertificates(files.clientCaPem);
    if (blocks.length === 0) {
      throw new Error(
        `client CA file ${paths.clientCaFile} holds no PEM certificate`,
      );
    }
    blocks.forEach((block, index) =>
      parse(
        `client CA file ${paths.clientCaFile}: certificate ${index + 1} is not valid`,
        () => new X509Certificate(block),
      ),
    );
  }
  const contextOptions: SecureContextOptions = {
    cert: files.certPem,
    key: files.keyPem,
    ca: files.clientCaPem,
    minVersion: settings.minVersion,
    ciphers: settings.ciphers,
  };
  parse(
    `OpenSSL refused the TLS settings for ${paths.certFile} and ${paths.keyFile}`,
    () => createSecureContext(contextOptions),
  );
  return { ...files, certificate, contextOptions };
}

/** `readTlsFiles` then `validateTlsFiles`. */
export async function loadTlsMaterial(
  paths: TlsFilePaths,
  settings: TlsSettings,
): Promise<TlsMaterial> {
  return validateTlsFiles(paths, await readTlsFiles(paths), settings);
}

async function readPem(what: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function parse<T>(failure: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new Error(`${failure}: ${errorMessage(error)}`, { cause: error });
  }
}

function pemCertificates(pem: string): string[] {
  return (
    pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g,
    ) ?? []
  );
}
