import { createPrivateKey, X509Certificate } from 'node:crypto';
import {
  certificateExpiry,
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const DAY_S = 24 * 60 * 60;

describe('createCertificateAuthority and issueServingCertificate', () => {
  let ca: CertificatePair;
  let serving: CertificatePair;
  let caCert: X509Certificate;
  let servingCert: X509Certificate;

  beforeAll(() => {
    ca = createCertificateAuthority({ commonName: 'tandem-test-ca' });
    serving = issueServingCertificate(ca, {
      dnsNames: ['tandem-webhook.tandem.svc', 'tandem-webhook'],
      ipAddresses: ['127.0.0.1', '::1'],
    });
    caCert = new X509Certificate(ca.certPem);
    servingCert = new X509Certificate(serving.certPem);
  });

  it('makes a self-signed RSA 2048 CA valid for ten years', () => {
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe('CN=tandem-test-ca');
    expect(caCert.issuer).toBe('CN=tandem-test-ca');
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(caCert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(caCert.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
    const lifetime =
      certificateExpiry(ca.certPem) - Math.floor(Date.now() / 1000);
    expect(lifetime).toBeGreaterThan(3649 * DAY_S);
    expect(lifetime).toBeLessThanOrEqual(3650 * DAY_S);
    expect(ca.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  it('issues a serving certificate signed by the CA with the SANs and serverAuth', () => {
    expect(servingCert.ca).toBe(false);
    expect(servingCert.checkIssued(caCert)).toBe(true);
    expect(servingCert.verify(caCert.publicKey)).toBe(true);
    expect(servingCert.checkPrivateKey(createPrivateKey(serving.keyPem))).toBe(
      true,
    );
    expect(servingCert.subject).toBe('CN=tandem-webhook.tandem.svc');
    expect(servingCert.subjectAltName).toBe(
      'DNS:tandem-webhook.tandem.svc, DNS:tandem-webhook, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(servingCert.keyUsage).toEqual([SERVER_AUTH]);
    expect(servingCert.checkHost('tandem-webhook.tandem.svc')).toBe(
      'tandem-webhook.tandem.svc',
    );
    expect(servingCert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(servingCert.checkHost('other.tandem.svc')).toBeUndefined();
    // Valid from an hour ago (clock skew) for a year.
    expect(servingCert.validFromDate.getTime()).toBeLessThan(
      Date.now() - 59 * 60 * 1000,
    );
    const lifetime =
      certificateExpiry(serving.certPem) - Math.floor(Date.now() / 1000);
    expect(lifetime).toBeGreaterThan(364 * DAY_S);
    expect(lifetime).toBeLessThanOrEqual(365 * DAY_S);
  });

  it('draws positive, minimally encoded 16-byte serial numbers', () => {
    for (const cert of [caCert, servingCert]) {
      expect(cert.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/);
      expect(cert.serialNumber.startsWith('00')).toBe(false);
    }
    expect(caCert.serialNumber).not.toBe(servingCert.serialNumber);
  });

  it('adds clientAuth on request, and honours commonName, notBefore and validityDays', () => {
    const notBefore = new Date('2030-01-01T00:00:00Z');
    const client = new X509Certificate(
      issueServingCertificate(ca, {
        dnsNames: [],
        ipAddresses: ['10.0.0.1'],
        commonName: 'system:kube-apiserver',
        notBefore,
        validityDays: 2,
        clientAuth: true,
      }).certPem,
    );
    expect(client.keyUsage).toEqual([SERVER_AUTH, CLIENT_AUTH]);
    expect(client.subject).toBe('CN=system:kube-apiserver');
    expect(client.subjectAltName).toBe('IP Address:10.0.0.1');
    expect(client.validFromDate).toEqual(notBefore);
    expect(client.validToDate).toEqual(new Date('2030-01-03T00:00:00Z'));
  });

  it('reports expiry as notAfter in whole seconds since the epoch', () => {
    expect(certificateExpiry(serving.certPem)).toBe(
      Math.floor(servingCert.validToDate.getTime() / 1000),
    );
    expect(() => certificateExpiry('not a certificate')).toThrow();
  });

  it('refuses a serving certificate without any name', () => {
    expect(() => issueServingCertificate(ca, { dnsNames: [] })).toThrow(
      'a serving certificate needs at least one DNS name or IP address',
    );
  });
});

describe('exact lifetimes', () => {
  it('take validitySeconds from issuedAt, with notBefore an hour earlier', () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    const ca = createCertificateAuthority({ validitySeconds: 90, issuedAt });
    const leaf = issueServingCertificate(ca, {
      dnsNames: ['x'],
      validitySeconds: 30,
      issuedAt,
    });
    for (const [pair, seconds] of [
      [ca, 90],
      [leaf, 30],
    ] as const) {
      const certificate = new X509Certificate(pair.certPem);
      expect(certificate.validToDate.getTime() - issuedAt.getTime()).toBe(
        seconds * 1000,
      );
      expect(issuedAt.getTime() - certificate.validFromDate.getTime()).toBe(
        3600_000,
      );
    }
  });
});
