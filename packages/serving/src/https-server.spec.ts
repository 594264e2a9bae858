import { X509Certificate } from 'node:crypto';
import {
  mkdir,
  mkdtemp,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import express from 'express';
import { Registry } from 'prom-client';
import {
  certificateExpiry,
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';
import { httpsGet } from './https-client.fixtures.js';
import {
  startHttpsServer,
  type HttpsServer,
  type HttpsServerOptions,
} from './https-server.js';
import { capturingLogger } from './log-capture.fixtures.js';
import { sleep, waitFor } from './wait.fixtures.js';

const SERVICE = 'tandem-webhook.tandem.svc';

// Generated once: RSA key generation is the slow part of this file.
let caOne: CertificatePair;
let caTwo: CertificatePair;
let servingOne: CertificatePair;
let servingTwo: CertificatePair;
let clientOfCaOne: CertificatePair;

beforeAll(() => {
  caOne = createCertificateAuthority({ commonName: 'ca-one' });
  caTwo = createCertificateAuthority({ commonName: 'ca-two' });
  const names = { dnsNames: [SERVICE], ipAddresses: ['127.0.0.1'] };
  servingOne = issueServingCertificate(caOne, names);
  servingTwo = issueServingCertificate(caTwo, names);
  clientOfCaOne = issueServingCertificate(caOne, {
    dnsNames: ['kube-apiserver'],
    clientAuth: true,
  });
});

const fingerprint = (pair: CertificatePair) =>
  new X509Certificate(pair.certPem).fingerprint256;

/** Answers who the client is, as the TLS layer saw it. */
const app = express();
app.get('/', (request, response) => {
  const socket = request.socket as TLSSocket;
  const peer = socket.getPeerCertificate();
  response.json({
    authorized: socket.authorized,
    client: peer.subject?.CN ?? null,
  });
});

describe('startHttpsServer', () => {
  let dir: string;
  let certFile: string;
  let keyFile: string;
  let caFile: string;
  let server: HttpsServer | undefined;
  let registry: Registry;
  let log: ReturnType<typeof capturingLogger>;
  let reloads: { certPem: string; clientCaPem?: string }[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-https-'));
    certFile = join(dir, 'serverCert.pem');
    keyFile = join(dir, 'serverKey.pem');
    caFile = join(dir, 'caCert.pem');
    registry = new Registry();
    log = capturingLogger();
    reloads = [];
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function writePair(pair: CertificatePair): Promise<void> {
    await writeFile(keyFile, pair.keyPem);
    await writeFile(certFile, pair.certPem);
  }

  async function start(
    options: Partial<HttpsServerOptions> = {},
  ): Promise<HttpsServer> {
    server = await startHttpsServer({
      port: 0,
      host: '127.0.0.1',
      certFile,
      keyFile,
      app,
      logger: log.logger,
      registry,
      onReload: (loaded) => reloads.push(loaded),
      ...options,
    });
    return server;
  }

  async function counter(outcome: 'success' | 'error'): Promise<number> {
    const metric = await registry
      .getSingleMetric('tandem_serving_certificate_reloads_total')
      ?.get();
    return (
      metric?.values.find((value) => value.labels['outcome'] === outcome)
        ?.value ?? Number.NaN
    );
  }

  async function expiryGauge(): Promise<number | undefined> {
    const metric = await registry
      .getSingleMetric('tandem_serving_certificate_expiry_timestamp_seconds')
      ?.get();
    return metric?.values[0]?.value;
  }

  const warnings = () => log.lines().filter((line) => line['level'] === 'warn');

  /** A GET on a fresh connection, trusting both CAs, checking the service name. */
  const fresh = (url: string) =>
    httpsGet(url, {
      ca: [caOne.certPem, caTwo.certPem],
      servername: SERVICE,
      agent: false,
    });

  describe('serving a generated certificate', () => {
    it('is trusted by clients of its CA, under its DNS name and IP', async () => {
      await writePair(servingOne);
      const { url, port } = await start();
      expect(url).toBe(`https://127.0.0.1:${port}`);

      const byName = await httpsGet(url, {
        ca: caOne.certPem,
        servername: SERVICE,
        agent: false,
      });
      expect(byName.status).toBe(200);
      expect(byName.fingerprint256).toBe(fingerprint(servingOne));
      expect(JSON.parse(byName.body)).toEqual({
        authorized: false,
        client: null,
      });
      const byIp = await httpsGet(url, { ca: caOne.certPem, agent: false });
      expect(byIp.status).toBe(200);
    });

    it('is refused by clients that do not trust the CA or want another name', async () => {
      await writePair(servingOne);
      const { url } = await start();
      await expect(
        httpsGet(url, { ca: caTwo.certPem, servername: SERVICE, agent: false }),
      ).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      await expect(
        httpsGet(url, {
          ca: caOne.certPem,
          servername: 'other.tandem.svc',
          agent: false,
        }),
      ).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      await expect(
        httpsGet(url, { servername: SERVICE, agent: false }),
      ).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    });

    it('exports the expiry and zeroed reload counters', async () => {
      await writePair(servingOne);
      await start();
      expect(await expiryGauge()).toBe(certificateExpiry(servingOne.certPem));
      expect(await counter('success')).toBe(0);
      expect(await counter('error')).toBe(0);
      // A second server on the same registry shares the metrics instead of throwing.
      const second = await startHttpsServer({
        port: 0,
        host: '127.0.0.1',
        certFile,
        keyFile,
        app,
        logger: log.logger,
        registry,
      });
      await second.close();
    });

    it('answers reload() with false when nothing changed', async () => {
      await writePair(servingOne);
      const { reload } = await start();
      await expect(reload()).resolves.toBe(false);
      expect(await counter('success')).toBe(0);
      expect(await counter('error')).toBe(0);
      expect(warnings()).toEqual([]);
    });
  });

  describe('refusing to start', () => {
    it('names a missing certificate or key file', async () => {
      await writeFile(keyFile, servingOne.keyPem);
      await expect(start()).rejects.toThrow(
        `cannot read certificate file ${certFile}: ENOENT`,
      );
      await rm(keyFile);
      await writeFile(certFile, servingOne.certPem);
      await expect(start()).rejects.toThrow(
        `cannot read key file ${keyFile}: ENOENT`,
      );
      await expect(start({ clientCaFile: caFile })).rejects.toThrow(
        /cannot read (key|client CA) file/,
      );
    });

    it('names a key that does not belong to the certificate', async () => {
      await writeFile(certFile, servingOne.certPem);
      await writeFile(keyFile, servingTwo.keyPem);
      await expect(start()).rejects.toThrow(
        `private key in ${keyFile} does not match the certificate in ${certFile}`,
      );
    });
  });

  describe('rotation', () => {
    // Up to 1,500 requests, half on fresh TLS connections: more than jest's default 5 s on
    // a loaded machine (a CI run beside a kind cluster took longer), hence 30 s.
    it('switches to a new pair under load without a single failed request', async () => {
      await writePair(servingOne);
      const { url } = await start({ pollIntervalMs: 200 });
      const keepAlive = new Agent({ keepAlive: true, maxSockets: 2 });
      const trust = { ca: [caOne.certPem, caTwo.certPem], servername: SERVICE };
      const failures: string[] = [];
      const seenOnFreshConnections = new Set<string>();
      let sent = 0;
      let rotated = false;
      let freshAfterRotation = 0;

      const enough = () =>
        sent >= 1500 || (rotated && sent >= 300 && freshAfterRotation >= 20);
      const client = async (agent: Agent | false) => {
        while (!enough()) {
          sent += 1;
          const after = rotated;
          try {
            const result = await httpsGet(url, { ...trust, agent });
            if (result.status !== 200) failures.push(`HTTP ${result.status}`);
            if (agent === false) {
              seenOnFreshConnections.add(result.fingerprint256);
              if (after) freshAfterRotation += 1;
            }
          } catch (error) {
            failures.push(String(error));
          }
        }
      };
      const rotation = async () => {
        await waitFor(() => sent >= 50, '50 requests before the rotation');
        // Key first, then the certificate once a reload has seen the mismatch (waited
        // for, not slept on: on a busy machine the watch can take longer than any fixed
        // pause). The key is replaced whole (a rename): written in place, a slow write can
        // be read half done, and the reload then fails on the key itself instead of the
        // mismatch.
        await writeFile(`${keyFile}.new`, servingTwo.keyPem);
        await rename(`${keyFile}.new`, keyFile);
        await waitFor(
          async () => (await counter('error')) >= 1,
          'a reload refusing the new key with the old certificate',
        );
        await writeFile(certFile, servingTwo.certPem);
        await waitFor(() => reloads.length === 1, 'the reload');
        rotated = true;
      };

      await Promise.all([
        client(keepAlive),
        client(keepAlive),
        client(false),
        client(false),
        rotation(),
      ]);
      keepAlive.destroy();

      expect(failures).toEqual([]);
      expect(rotated).toBe(true);
      expect(seenOnFreshConnections).toEqual(
        new Set([fingerprint(servingOne), fingerprint(servingTwo)]),
      );
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingTwo));
      expect(reloads).toEqual([
        expect.objectContaining({ certPem: servingTwo.certPem }),
      ]);
      expect(await counter('success')).toBe(1);
      expect(await counter('error')).toBeGreaterThanOrEqual(1);
      expect(warnings()[0]).toMatchObject({
        msg: 'Certificate reload failed, keeping the current certificate',
        reason: expect.stringContaining(
          `private key in ${keyFile} does not match the certificate in ${certFile}`,
        ),
      });
      expect(
        log
          .lines()
          .filter((line) => line['msg'] === 'New certificate found, reloading'),
      ).toEqual([
        expect.objectContaining({
          level: 'info',
          certFile,
          keyFile,
          fingerprint256: fingerprint(servingTwo),
        }),
      ]);
      expect(await expiryGauge()).toBe(certificateExpiry(servingTwo.certPem));
    }, 30_000);

    it('follows a Kubernetes Secret volume swapping ..data', async () => {
      const version = async (name: string, pair: CertificatePair) => {
        const target = join(dir, `..2026_01_01_00_00_00.${name}`);
        await mkdir(target);
        await writeFile(join(target, 'serverCert.pem'), pair.certPem);
        await writeFile(join(target, 'serverKey.pem'), pair.keyPem);
        await symlink(target, join(dir, '..data_tmp'));
        await rename(join(dir, '..data_tmp'), join(dir, '..data'));
      };
      await version('1', servingOne);
      await symlink(join('..data', 'serverCert.pem'), certFile);
      await symlink(join('..data', 'serverKey.pem'), keyFile);
      // A poll an hour away: the directory event has to do it.
      const { url } = await start({ pollIntervalMs: 3_600_000 });
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingOne));

      await version('2', servingTwo);
      await waitFor(() => reloads.length === 1, 'the reload');
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingTwo));
      // Both files changed in one rename: never a mismatched pair in between.
      expect(await counter('error')).toBe(0);
    });

    it('keeps serving the old pair when the new files are bad, then recovers', async () => {
      await writePair(servingOne);
      const { url, reload } = await start({ pollIntervalMs: 3_600_000 });

      await writeFile(certFile, 'garbage');
      await expect(reload()).resolves.toBe(false);
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingOne));
      expect(await counter('error')).toBeGreaterThanOrEqual(1);
      expect(warnings().at(-1)).toMatchObject({
        certFile,
        keyFile,
        reason: expect.stringContaining(
          `certificate file ${certFile} holds no valid PEM certificate`,
        ),
      });

      const errorsBefore = await counter('error');
      await writeFile(certFile, servingTwo.certPem); // the key is still servingOne's
      await expect(reload()).resolves.toBe(false);
      expect(await counter('error')).toBeGreaterThan(errorsBefore);
      expect(warnings().at(-1)).toMatchObject({
        reason: expect.stringContaining('does not match the certificate'),
      });
      await rm(keyFile);
      await expect(reload()).resolves.toBe(false);
      expect(warnings().at(-1)).toMatchObject({
        reason: expect.stringContaining(`cannot read key file ${keyFile}`),
      });
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingOne));
      expect(reloads).toEqual([]);
      expect(await counter('success')).toBe(0);

      await writeFile(keyFile, servingTwo.keyPem);
      await waitFor(() => reloads.length === 1, 'the reload');
      expect((await fresh(url)).fingerprint256).toBe(fingerprint(servingTwo));
      expect(await counter('success')).toBe(1);
    });
  });

  describe('client certificates', () => {
    it('authorizes clients of the client CA, and follows a CA change', async () => {
      await writePair(servingOne);
      await writeFile(caFile, caOne.certPem);
      const { url } = await start({ clientCaFile: caFile });
      const asClient = () =>
        httpsGet(url, {
          ca: caOne.certPem,
          servername: SERVICE,
          cert: clientOfCaOne.certPem,
          key: clientOfCaOne.keyPem,
          agent: false,
        });

      expect(JSON.parse((await asClient()).body)).toEqual({
        authorized: true,
        client: 'kube-apiserver',
      });
      const anonymous = await httpsGet(url, {
        ca: caOne.certPem,
        servername: SERVICE,
        agent: false,
      });
      expect(JSON.parse(anonymous.body)).toEqual({
        authorized: false,
        client: null,
      });

      await writeFile(caFile, caTwo.certPem);
      await waitFor(() => reloads.length === 1, 'the reload');
      expect(reloads[0]?.clientCaPem).toBe(caTwo.certPem);
      // Still accepted (certificates are requested, not required), no longer trusted.
      expect(JSON.parse((await asClient()).body)).toEqual({
        authorized: false,
        client: 'kube-apiserver',
      });
    });
  });

  describe('close', () => {
    it('stops serving and watching, and is idempotent', async () => {
      await writePair(servingOne);
      const { url, reload, close } = await start({ pollIntervalMs: 20 });
      expect((await fresh(url)).status).toBe(200);
      await Promise.all([close(), close()]);
      await expect(fresh(url)).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
      await writePair(servingTwo);
      await expect(reload()).resolves.toBe(false);
      await sleep(100);
      expect(reloads).toEqual([]);
    });
  });
});
