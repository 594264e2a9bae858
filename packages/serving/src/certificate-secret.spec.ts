import {
  bundlePem,
  decodeAuthorities,
  encodeAuthorities,
  SECRET_ANNOTATIONS,
  SECRET_KEYS,
  storedAuthority,
  type StoredAuthorities,
  type StoredAuthority,
} from './certificate-secret.js';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from './certificates.js';

const stored = (): StoredAuthority => {
  const pair = createCertificateAuthority({ validitySeconds: 3600 });
  return storedAuthority(pair.certPem, pair.keyPem);
};

describe('the certificate Secret', () => {
  let first: StoredAuthority;
  let second: StoredAuthority;
  let third: StoredAuthority;

  beforeAll(() => {
    [first, second, third] = [stored(), stored(), stored()];
  });

  it('round-trips signing, next and previous CAs with their times in annotations', () => {
    const state: StoredAuthorities = {
      signing: first,
      next: { ca: second, stagedAtMs: Date.parse('2026-01-01T00:00:00Z') },
    };
    const contents = encodeAuthorities(state, {
      data: { 'serverCert.pem': 'legacy' },
      annotations: { 'other.example/kept': 'yes' },
    });
    expect(Object.keys(contents.data).sort()).toEqual([
      SECRET_KEYS.caCert,
      SECRET_KEYS.caKey,
      SECRET_KEYS.nextCaCert,
      SECRET_KEYS.nextCaKey,
    ]);
    expect(contents.annotations).toEqual({
      'other.example/kept': 'yes',
      [SECRET_ANNOTATIONS.nextStagedAt]: '2026-01-01T00:00:00.000Z',
    });
    expect(decodeAuthorities(contents)).toEqual({ state });

    const promoted: StoredAuthorities = {
      signing: second,
      previous: { ca: third, promotedAtMs: Date.parse('2026-01-02T00:00:00Z') },
    };
    const after = encodeAuthorities(promoted, contents);
    // The previous CA's key is not kept: it signs nothing any more.
    expect(after.data[SECRET_KEYS.nextCaKey]).toBeUndefined();
    expect(after.annotations[SECRET_ANNOTATIONS.nextStagedAt]).toBeUndefined();
    expect(decodeAuthorities(after)).toEqual({
      state: {
        signing: second,
        previous: {
          ca: {
            id: third.id,
            certPem: third.certPem,
            notAfterMs: third.notAfterMs,
          },
          promotedAtMs: promoted.previous?.promotedAtMs,
        },
      },
    });
  });

  it('adopts the CA a `certs` init container stored (same keys, no annotations)', () => {
    const legacy = {
      data: {
        'caCert.pem': first.certPem,
        'caKey.pem': first.keyPem,
        'serverCert.pem': 'a serving certificate',
        'serverKey.pem': 'its key',
      },
      annotations: {},
    };
    expect(decodeAuthorities(legacy)).toEqual({ state: { signing: first } });
  });

  it('holds nothing when empty', () => {
    expect(decodeAuthorities({ data: {}, annotations: {} })).toEqual({
      state: undefined,
    });
  });

  it.each([
    [
      'a CA certificate without its key (half-written)',
      () => ({ 'caCert.pem': first.certPem }),
      /caKey.pem is missing/,
    ],
    [
      'a key of another certificate',
      () => ({ 'caCert.pem': first.certPem, 'caKey.pem': second.keyPem }),
      /does not belong/,
    ],
    [
      'a certificate that does not parse',
      () => ({ 'caCert.pem': 'garbage', 'caKey.pem': first.keyPem }),
      /caCert.pem/,
    ],
    [
      'a next CA without its staging time',
      () => ({
        'caCert.pem': first.certPem,
        'caKey.pem': first.keyPem,
        'nextCaCert.pem': second.certPem,
        'nextCaKey.pem': second.keyPem,
      }),
      /next-ca-staged-at/,
    ],
    [
      'a serving certificate where a CA belongs',
      () => {
        const leaf = issueServingCertificate(first, { dnsNames: ['x'] });
        return { 'caCert.pem': leaf.certPem, 'caKey.pem': leaf.keyPem };
      },
      /is not a CA certificate/,
    ],
  ])('cannot be trusted with %s', (_what, data, problem) => {
    const decoded = decodeAuthorities({ data: data(), annotations: {} });
    expect(decoded).toEqual({ problem: expect.stringMatching(problem) });
  });

  it('bundles CAs in one order whatever their roles, each once', () => {
    const bundle = bundlePem([first, second]);
    expect(bundlePem([second, first])).toBe(bundle);
    expect(bundlePem([second, first, second])).toBe(bundle);
    expect(bundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });
});
