import {
  createPrivateKey,
  generateKeyPairSync,
  privateEncrypt,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import forge from 'node-forge';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificatePair {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface CertificateAuthorityOptions {
  /** Subject and issuer CN; default `tandem-ca`. */
  readonly commonName?: string;
  /** Default 3650 (ten years). */
  readonly validityDays?: number;
  /** An exact lifetime, counted from `issuedAt`; wins over `validityDays`. */
  readonly validitySeconds?: number;
  /** The moment of issue (default now); `notBefore` is an hour earlier. */
  readonly issuedAt?: Date;
}

export interface ServingCertificateOptions {
  /** subjectAltName DNS entries, e.g. `tandem-webhook.tandem.svc`. */
  readonly dnsNames: readonly string[];
  /** subjectAltName IP entries (IPv4 or IPv6), e.g. `127.0.0.1` for tests. */
  readonly ipAddresses?: readonly string[];
  /** Subject CN; default the first DNS name (or IP). Clients check the SANs, not this. */
  readonly commonName?: string;
  /** Default 365. Counted from `notBefore` when given, from `issuedAt` otherwise. */
  readonly validityDays?: number;
  /** An exact lifetime, counted as `validityDays` is; wins over it. */
  readonly validitySeconds?: number;
  /** The moment of issue (default now); `notBefore`, unless given, is an hour earlier. */
  readonly issuedAt?: Date;
  /** Default one hour ago, so a client whose clock runs a little behind accepts it. */
  readonly notBefore?: Date;
  /** Also allow the certificate to authenticate a TLS client (adds the clientAuth EKU). */
  readonly clientAuth?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Certificates start an hour in the past, so a client whose clock runs behind still
// accepts a fresh one (client-go's self-signed certificates do the same).
const CLOCK_SKEW_MS = 60 * 60 * 1000;

/** A self-signed RSA 2048 CA certificate (basicConstraints CA, keyCertSign). */
export function createCertificateAuthority(
  options: CertificateAuthorityOptions = {},
): CertificatePair {
  const keys = generateRsaKeyPair();
  const now = options.issuedAt?.getTime() ?? Date.now();
  const subject = [
    { shortName: 'CN', value: options.commonName ?? 'tandem-ca' },
  ];
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = randomSerialNumber();
  cert.validity.notBefore = new Date(now - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(now + validityMs(options, 3650));
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    {
      name: 'keyUsage',
      keyCertSign: true,
      cRLSign: true,
      digitalSignature: true,
      critical: true,
    },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(opensslSigner(keys.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/**
 * An RSA 2048 leaf certificate signed by `ca`, for serving TLS (serverAuth EKU) under
 * the given DNS names and IP addresses. Throws when there is no name at all: clients
 * (the Kubernetes apiserver among them) match only the subjectAltNames.
 */
export function issueServingCertificate(
  ca: CertificatePair,
  options: ServingCertificateOptions,
): CertificatePair {
  const dnsNames = options.dnsNames;
  const ipAddresses = options.ipAddresses ?? [];
  const commonName = options.commonName ?? dnsNames[0] ?? ipAddresses[0];
  if (commonName === undefined) {
    throw new Error(
      'a serving certificate needs at least one DNS name or IP address',
    );
  }
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const keys = generateRsaKeyPair();
  const start =
    options.notBefore?.getTime() ?? options.issuedAt?.getTime() ?? Date.now();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = randomSerialNumber();
  cert.validity.notBefore =
    options.notBefore ?? new Date(start - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(start + validityMs(options, 365));
  cert.setSubject([{ shortName: 'CN', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    {
      name: 'keyUsage',
      digitalSignature: true,
      keyEncipherment: true,
      critical: true,
    },
    {
      name: 'extKeyUsage',
      serverAuth: true,
      clientAuth: options.clientAuth === true,
    },
    {
      name: 'subjectAltName',
      altNames: [
        ...dnsNames.map((value) => ({ type: 2, value })),
        ...ipAddresses.map((ip) => ({ type: 7, ip })),
      ],
    },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  cert.sign(opensslSigner(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

function validityMs(
  options: { validityDays?: number; validitySeconds?: number },
  defaultDays: number,
): number {
  return options.validitySeconds !== undefined
    ? options.validitySeconds * 1000
    : (options.validityDays ?? defaultDays) * DAY_MS;
}

/** Seconds since the epoch at which the (first) certificate in `certPem` expires. */
export function certificateExpiry(certPem: string): number {
  return Math.floor(new X509Certificate(certPem).validToDate.getTime() / 1000);
}

// node-forge generates RSA keys in pure JavaScript (seconds per key); OpenSSL does it
// in a fraction of that. forge only builds the certificate.
function generateRsaKeyPair(): {
  keyPem: string;
  publicKey: forge.pki.rsa.PublicKey;
} {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    keyPem: privateKey,
    publicKey: forge.pki.publicKeyFromPem(publicKey),
  };
}

// DER prefix of a SHA-256 DigestInfo (RFC 8017, section 9.2, note 1).
const SHA256_DIGEST_INFO = Buffer.from(
  '3031300d060960864801650304020105000420',
  'hex',
);

/**
 * Stands in for a forge private key in `certificate.sign`, which hands it the SHA-256
 * digest of the TBSCertificate: the RSASSA-PKCS1-v1_5 signature is made by OpenSSL
 * (PKCS#1 type 1 padding over the DigestInfo). forge's own RSA arithmetic is pure
 * JavaScript: about 0.1 s per signature in Node, seconds under Jest's VM.
 */
function opensslSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  const key = createPrivateKey(keyPem);
  const signer: Pick<forge.pki.rsa.PrivateKey, 'sign'> = {
    sign: (md) => {
      if (typeof md === 'string') {
        throw new Error('expected a message digest to sign');
      }
      const digest = Buffer.from(md.digest().getBytes(), 'binary');
      return privateEncrypt(
        key,
        Buffer.concat([SHA256_DIGEST_INFO, digest]),
      ).toString('binary');
    },
  };
  return signer as forge.pki.rsa.PrivateKey;
}

// RFC 5280: a positive integer of at most 20 octets. The first octet is kept in
// 0x01..0x7f so the DER encoding is positive and minimal (Go's parser rejects others).
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes.writeUInt8((bytes.readUInt8(0) & 0x7f) | 0x01, 0);
  return bytes.toString('hex');
}
