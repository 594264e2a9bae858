import type { SecureContextOptions } from 'node:tls';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';
import {
  certificateReloader,
  type CertificateReloader,
} from './certificate-reloader.js';
import { capturingLogger } from './log-capture.fixtures.js';
import type { ReloadOutcome } from './reload-metrics.js';
import { loadTlsMaterial, type TlsFilePaths } from './tls-material.js';

const settings = { minVersion: 'TLSv1.2' } as const;

describe('certificateReloader', () => {
  let ca: CertificatePair;
  let serving: CertificatePair;
  let dir: string;
  let paths: Required<TlsFilePaths>;
  let installed: SecureContextOptions[];
  let outcomes: ReloadOutcome[];
  let expiries: number[];
  let log: ReturnType<typeof capturingLogger>;
  let reloaded: unknown[];
  let onReloadThrows: Error | undefined;
  let reloader: CertificateReloader;

  beforeAll(() => {
    ca = createCertificateAuthority();
    serving = issueServingCertificate(ca, { dnsNames: ['localhost'] });
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-reloader-'));
    paths = {
      certFile: join(dir, 'serverCert.pem'),
      keyFile: join(dir, 'serverKey.pem'),
      clientCaFile: join(dir, 'caCert.pem'),
    };
    await writeFile(paths.certFile, serving.certPem);
    await writeFile(paths.keyFile, serving.keyPem);
    await writeFile(paths.clientCaFile, ca.certPem);
    installed = [];
    outcomes = [];
    expiries = [];
    log = capturingLogger();
    reloaded = [];
    onReloadThrows = undefined;
    reloader = certificateReloader({
      paths,
      settings,
      initial: await loadTlsMaterial(paths, settings),
      install: (options) => installed.push(options),
      logger: log.logger,
      metrics: {
        reloaded: (outcome) => outcomes.push(outcome),
        expiresAt: (seconds) => expiries.push(seconds),
      },
      onReload: (loaded) => {
        reloaded.push(loaded);
        if (onReloadThrows) throw onReloadThrows;
      },
    });
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  const warnings = () => log.lines().filter((line) => line['level'] === 'warn');

  it('does nothing while the contents are unchanged', async () => {
    await writeFile(paths.certFile, serving.certPem); // rewritten, same bytes
    await expect(reloader.reload('watch')).resolves.toBe(false);
    await expect(reloader.reload('explicit')).resolves.toBe(false);
    expect(installed).toEqual([]);
    expect(outcomes).toEqual([]);
    expect(log.lines()).toEqual([]);
  });

  it('installs changed, valid files and reports them', async () => {
    const bundle = `${ca.certPem}${serving.certPem}`;
    await writeFile(paths.clientCaFile, bundle);
    await expect(reloader.reload('poll')).resolves.toBe(true);
    expect(installed).toEqual([expect.objectContaining({ ca: bundle })]);
    expect(outcomes).toEqual(['success']);
    expect(expiries).toHaveLength(1);
    expect(reloaded).toEqual([
      {
        certPem: serving.certPem,
        keyPem: serving.keyPem,
        clientCaPem: bundle,
      },
    ]);
    expect(log.lines()).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'New certificate found, reloading',
        trigger: 'poll',
        subject: 'CN=localhost',
      }),
    ]);
    await expect(reloader.reload('explicit')).resolves.toBe(false);
  });

  it('reports the same bad files once per automatic trigger, every time when explicit', async () => {
    await writeFile(paths.keyFile, ca.keyPem);
    await expect(reloader.reload('watch')).resolves.toBe(false);
    await expect(reloader.reload('poll')).resolves.toBe(false);
    expect(outcomes).toEqual(['error']);
    expect(warnings()).toEqual([
      expect.objectContaining({
        trigger: 'watch',
        msg: 'Certificate reload failed, keeping the current certificate',
        reason: expect.stringContaining('does not match the certificate'),
      }),
    ]);
    await expect(reloader.reload('explicit')).resolves.toBe(false);
    expect(outcomes).toEqual(['error', 'error']);

    // Other bad files are news again.
    await rm(paths.keyFile);
    await expect(reloader.reload('poll')).resolves.toBe(false);
    expect(outcomes).toEqual(['error', 'error', 'error']);
    expect(warnings().at(-1)?.['reason']).toMatch(/^cannot read key file/);
    expect(installed).toEqual([]);
  });

  it('runs one attempt at a time: concurrent triggers install once', async () => {
    await writeFile(paths.clientCaFile, `${ca.certPem}\n`);
    const results = await Promise.all([
      reloader.reload('watch'),
      reloader.reload('poll'),
      reloader.reload('explicit'),
    ]);
    expect(results).toEqual([true, false, false]);
    expect(installed).toHaveLength(1);
  });

  it('survives an onReload that throws', async () => {
    onReloadThrows = new Error('caBundle patch refused');
    await writeFile(paths.clientCaFile, `${ca.certPem}\n`);
    await expect(reloader.reload('explicit')).resolves.toBe(true);
    expect(log.lines().at(-1)).toMatchObject({
      level: 'error',
      reason: 'caBundle patch refused',
    });
  });

  it('does nothing once stopped', async () => {
    await writeFile(paths.clientCaFile, `${ca.certPem}\n`);
    reloader.stop();
    await expect(reloader.reload('explicit')).resolves.toBe(false);
    expect(installed).toEqual([]);
  });
});
