import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';
import {
  loadTlsMaterial,
  readTlsFiles,
  validateTlsFiles,
  type TlsFilePaths,
} from './tls-material.js';

const settings = { minVersion: 'TLSv1.2' } as const;

describe('readTlsFiles and validateTlsFiles', () => {
  let ca: CertificatePair;
  let serving: CertificatePair;
  let dir: string;
  let paths: Required<TlsFilePaths>;

  beforeAll(() => {
    ca = createCertificateAuthority();
    serving = issueServingCertificate(ca, { dnsNames: ['localhost'] });
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-material-'));
    paths = {
      certFile: join(dir, 'serverCert.pem'),
      keyFile: join(dir, 'serverKey.pem'),
      clientCaFile: join(dir, 'caCert.pem'),
    };
    await write(serving.certPem, serving.keyPem, ca.certPem);
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function write(certPem: string, keyPem: string, caPem: string) {
    await writeFile(paths.certFile, certPem);
    await writeFile(paths.keyFile, keyPem);
    await writeFile(paths.clientCaFile, caPem);
  }

  it('loads a matching pair and client CA into secure context options', async () => {
    const material = await loadTlsMaterial(paths, settings);
    expect(material.certPem).toBe(serving.certPem);
    expect(material.clientCaPem).toBe(ca.certPem);
    expect(material.certificate.subject).toBe('CN=localhost');
    expect(material.contextOptions).toEqual({
      cert: serving.certPem,
      key: serving.keyPem,
      ca: ca.certPem,
      minVersion: 'TLSv1.2',
      ciphers: undefined,
    });
  });

  it('has a digest that changes with any file', async () => {
    const before = (await readTlsFiles(paths)).digest;
    expect((await readTlsFiles(paths)).digest).toBe(before);
    await writeFile(paths.clientCaFile, `${ca.certPem}\n`);
    expect((await readTlsFiles(paths)).digest).not.toBe(before);
    const withoutCa = { certFile: paths.certFile, keyFile: paths.keyFile };
    expect((await readTlsFiles(withoutCa)).clientCaPem).toBeUndefined();
  });

  it('names the file it cannot read', async () => {
    await rm(paths.keyFile);
    await expect(readTlsFiles(paths)).rejects.toThrow(
      `cannot read key file ${paths.keyFile}: ENOENT`,
    );
  });

  it.each([
    [
      'a garbage certificate',
      () => write('garbage', serving.keyPem, ca.certPem),
      () => `certificate file ${paths.certFile} holds no valid PEM certificate`,
    ],
    [
      'a garbage key',
      () => write(serving.certPem, 'garbage', ca.certPem),
      () => `key file ${paths.keyFile} holds no valid PEM private key`,
    ],
    [
      'a key of another certificate',
      () => write(serving.certPem, ca.keyPem, ca.certPem),
      () =>
        `private key in ${paths.keyFile} does not match the certificate in ${paths.certFile} (subject CN=localhost, serial `,
    ],
    [
      'a client CA file without certificates',
      () => write(serving.certPem, serving.keyPem, 'garbage'),
      () => `client CA file ${paths.clientCaFile} holds no PEM certificate`,
    ],
    [
      'a client CA certificate that does not parse',
      () =>
        write(
          serving.certPem,
          serving.keyPem,
          `${ca.certPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`,
        ),
      () => `client CA file ${paths.clientCaFile}: certificate 2 is not valid`,
    ],
  ])('rejects %s with the reason', async (_case, arrange, reason) => {
    await arrange();
    const files = await readTlsFiles(paths);
    expect(() => validateTlsFiles(paths, files, settings)).toThrow(reason());
  });

  it('rejects settings OpenSSL refuses', async () => {
    await expect(
      loadTlsMaterial(paths, { ...settings, ciphers: 'NO-SUCH-CIPHER' }),
    ).rejects.toThrow(
      `OpenSSL refused the TLS settings for ${paths.certFile} and ${paths.keyFile}`,
    );
  });
});
