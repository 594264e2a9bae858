import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { certificateRotation } from './certificate-rotation.js';
import { memorySecretStore, type SecretStore } from './certificate-store.js';
import { capturingLogger } from './log-capture.fixtures.js';

const S = 1000;
// Short lifetimes, as the e2e suite uses: a CA is staged at +60 s, promoted at +70 s and
// the previous one retired at +80 s; serving certificates are renewed with 10 s left.
const LIFETIMES = {
  caValidityMs: 90 * S,
  certValidityMs: 30 * S,
  caOverlapMs: 10 * S,
};
const IDENTITY = {
  commonName: 'tandem.test.svc',
  dnsNames: ['tandem.test.svc'],
  ipAddresses: ['127.0.0.1'],
};

const certificates = (pem: string) =>
  (
    pem.match(
      /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g,
    ) ?? []
  ).map((block) => new X509Certificate(block));

describe('certificateRotation', () => {
  let root: string;
  let clock: number;
  const T0 = Date.now();

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'serving-rotation-'));
    clock = T0;
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  function replica(store: SecretStore, name: string, registry?: Registry) {
    const log = capturingLogger();
    const rotation = certificateRotation({
      store,
      dir: join(root, name),
      identity: IDENTITY,
      lifetimes: LIFETIMES,
      logger: log.logger,
      registry,
      now: () => clock,
    });
    const served = async () => {
      const [bundle, cert, key] = await Promise.all(
        [
          rotation.files.caBundleFile,
          rotation.files.certFile,
          rotation.files.keyFile,
        ].map((file) => readFile(file, 'utf8')),
      );
      const leaf = new X509Certificate(cert ?? '');
      const cas = certificates(bundle ?? '');
      return {
        bundle: cas.map((ca) => ca.fingerprint256),
        issuer: cas.find(
          (ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey),
        )?.fingerprint256,
        leaf: leaf.fingerprint256,
        keyMatches: leaf.checkPrivateKey(createPrivateKey(key ?? '')),
      };
    };
    return { rotation, served, lines: log.lines };
  }

  it('writes the bundle and a serving pair signed by a CA of it on first start', async () => {
    const { rotation, served } = replica(memorySecretStore(), 'a');
    expect(await rotation.check()).toBe(true);
    const files = await served();
    expect(files.bundle).toHaveLength(1);
    expect(files.issuer).toBe(files.bundle[0]);
    expect(files.keyMatches).toBe(true);
    // A PrintableString, as forge encodes it: Go (the API server) refuses a CN with '@'.
    const ca = new X509Certificate(
      await readFile(rotation.files.caBundleFile, 'utf8'),
    );
    expect(ca.subject).toMatch(/^CN=[A-Za-z0-9 '()+,\-./:=?]+$/);
  });

  it('lets a second replica adopt the CA, with a serving certificate of its own', async () => {
    const store = memorySecretStore();
    const a = replica(store, 'a');
    const b = replica(store, 'b');
    await a.rotation.check();
    await b.rotation.check();
    const [servedA, servedB] = [await a.served(), await b.served()];
    expect(servedB.bundle).toEqual(servedA.bundle);
    expect(servedB.issuer).toBe(servedA.issuer);
    expect(servedB.leaf).not.toBe(servedA.leaf);
  });

  it('settles two replicas racing on one resourceVersion on the winner’s CA', async () => {
    const store = memorySecretStore();
    // Both read the empty store before either writes.
    let reads = 0;
    let bothRead: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const racing: SecretStore = {
      read: async () => {
        const read = await store.read();
        if (++reads === 2) bothRead();
        if (reads <= 2) await barrier;
        return read;
      },
      write: (contents, version) => store.write(contents, version),
    };
    const registry = new Registry();
    const a = replica(racing, 'a', registry);
    const b = replica(racing, 'b');
    expect(await Promise.all([a.rotation.check(), b.rotation.check()])).toEqual(
      [true, true],
    );
    const [servedA, servedB] = [await a.served(), await b.served()];
    expect(servedA.bundle).toHaveLength(1);
    expect(servedB.bundle).toEqual(servedA.bundle);
    const stored = await store.read();
    expect(stored?.resourceVersion).toBe('1');
    const adopted = [...a.lines(), ...b.lines()].filter((line) =>
      String(line['msg']).startsWith(
        'another replica updated the certificate Secret first',
      ),
    );
    expect(adopted).toHaveLength(1);
  });

  it('rotates the CA through stage, promote and retire, renewing serving certificates on the way', async () => {
    const store = memorySecretStore();
    const a = replica(store, 'a');
    const at = async (seconds: number) => {
      clock = T0 + seconds * S;
      expect(await a.rotation.check()).toBe(true);
      return a.served();
    };
    const start = await at(0);
    const [first] = start.bundle;
    const renewed = await at(21);
    expect(renewed.leaf).not.toBe(start.leaf);
    expect(renewed.issuer).toBe(first);
    const staged = await at(61);
    expect(staged.bundle).toHaveLength(2);
    expect(staged.issuer).toBe(first);
    const second = staged.bundle.find((ca) => ca !== first);
    expect((await at(65)).issuer).toBe(first);
    const promoted = await at(72);
    // The bundle file is the same bytes: the caBundle is not written again.
    expect(promoted.bundle).toEqual(staged.bundle);
    expect(promoted.issuer).toBe(second);
    const retired = await at(83);
    expect(retired.bundle).toEqual([second]);
    expect(retired.issuer).toBe(second);
    expect(retired.leaf).toBe(promoted.leaf);
  });

  it('replaces a malformed Secret with a new CA, and says so', async () => {
    const store = memorySecretStore();
    await store.write(
      { data: { 'caCert.pem': 'garbage' }, annotations: {} },
      undefined,
    );
    const a = replica(store, 'a');
    expect(await a.rotation.check()).toBe(true);
    expect((await a.served()).bundle).toHaveLength(1);
    expect(a.lines().map((line) => line['msg'])).toContain(
      'the certificate Secret cannot be trusted: replacing it with a new CA',
    );
    expect((await store.read())?.resourceVersion).toBe('2');
  });

  it('keeps serving when the API fails: logs, counts, and renews from the CA it last read', async () => {
    const store = memorySecretStore();
    let down = false;
    const flaky: SecretStore = {
      read: () =>
        down ? Promise.reject(new Error('connection refused')) : store.read(),
      write: (contents, version) => store.write(contents, version),
    };
    const registry = new Registry();
    const a = replica(flaky, 'a', registry);
    await a.rotation.check();
    const before = await a.served();
    down = true;
    clock = T0 + 25 * S;
    expect(await a.rotation.check()).toBe(false);
    const after = await a.served();
    expect(after.issuer).toBe(before.issuer);
    expect(after.leaf).not.toBe(before.leaf);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string, labels: Record<string, string>) =>
      metrics
        .find((metric) => metric.name === name)
        ?.values.find((sample) =>
          Object.entries(labels).every(
            ([key, label]) => sample.labels[key] === label,
          ),
        )?.value;
    expect(
      value('tandem_serving_certificate_checks_total', { outcome: 'error' }),
    ).toBe(1);
    expect(
      value('tandem_serving_certificate_renewals_total', {
        certificate: 'leaf',
      }),
    ).toBe(2);
    expect(
      value('tandem_serving_certificate_renewals_total', { certificate: 'ca' }),
    ).toBe(1);
  });
});
