import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { AuthorityState } from './certificate-plan.js';
import { errorMessage } from './error-message.js';

/** A CA certificate as the Secret holds it, with what the plan reads from it. */
export interface StoredCertificate {
  /** SHA-256 fingerprint. */
  readonly id: string;
  readonly certPem: string;
  readonly notAfterMs: number;
}

/** A CA that can sign: its certificate and its key. */
export interface StoredAuthority extends StoredCertificate {
  readonly keyPem: string;
}

export type StoredAuthorities = AuthorityState<
  StoredAuthority,
  StoredCertificate
>;

/** The parts of a Secret the certificates live in: decoded `data` and the annotations. */
export interface SecretContents {
  readonly data: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The keys of the Secret. The signing CA keeps the names the `certs` init container used,
 * so an installation that had one keeps its CA; the serving pair it also stored is left
 * out of every later write (serving certificates are per replica now).
 */
export const SECRET_KEYS = {
  caCert: 'caCert.pem',
  caKey: 'caKey.pem',
  nextCaCert: 'nextCaCert.pem',
  nextCaKey: 'nextCaKey.pem',
  previousCaCert: 'previousCaCert.pem',
} as const;

/**
 * When the state changed, in RFC 3339, written in the same update as the data. Recorded
 * rather than derived from the certificates: notBefore is backdated, and notAfter minus
 * the configured lifetime is wrong once `--ca-validity` changes.
 */
export const SECRET_ANNOTATIONS = {
  nextStagedAt: 'tandem.dev/next-ca-staged-at',
  previousPromotedAt: 'tandem.dev/previous-ca-promoted-at',
} as const;

/** Certificate and key of a CA, checked: parses, is a CA, and the key is its own. */
export function storedAuthority(
  certPem: string,
  keyPem: string,
): StoredAuthority {
  const certificate = storedCertificate(certPem);
  const x509 = new X509Certificate(certPem);
  if (!x509.checkPrivateKey(createPrivateKey(keyPem)))
    throw new Error('the key does not belong to the certificate');
  return { ...certificate, keyPem };
}

function storedCertificate(certPem: string): StoredCertificate {
  const x509 = new X509Certificate(certPem);
  if (!x509.ca) throw new Error(`${x509.subject} is not a CA certificate`);
  return {
    id: x509.fingerprint256,
    certPem,
    notAfterMs: x509.validToDate.getTime(),
  };
}

/**
 * The CAs a Secret holds, or the reason it cannot be trusted: a signing CA without its
 * key (half-written), a next CA without key or staging time, a certificate that does not
 * parse, a key of another certificate. An empty Secret is `undefined` with no problem.
 */
export function decodeAuthorities(
  contents: SecretContents,
): { state: StoredAuthorities | undefined } | { problem: string } {
  const { data, annotations } = contents;
  const ours = Object.values(SECRET_KEYS).filter(
    (key) => data[key] !== undefined,
  );
  if (ours.length === 0) return { state: undefined };
  const part = <T>(what: string, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw new Error(`${what}: ${errorMessage(error)}`, { cause: error });
    }
  };
  const required = (key: string) => {
    const value = data[key];
    if (value === undefined || value.trim() === '')
      throw new Error(`${key} is missing`);
    return value;
  };
  const time = (annotation: string) => {
    const ms = Date.parse(annotations[annotation] ?? '');
    if (Number.isNaN(ms))
      throw new Error(`annotation ${annotation} is missing or not a time`);
    return ms;
  };
  try {
    const signing = part(SECRET_KEYS.caCert, () =>
      storedAuthority(
        required(SECRET_KEYS.caCert),
        required(SECRET_KEYS.caKey),
      ),
    );
    const hasNext =
      data[SECRET_KEYS.nextCaCert] !== undefined ||
      data[SECRET_KEYS.nextCaKey] !== undefined;
    const next = hasNext
      ? part(SECRET_KEYS.nextCaCert, () => ({
          ca: storedAuthority(
            required(SECRET_KEYS.nextCaCert),
            required(SECRET_KEYS.nextCaKey),
          ),
          stagedAtMs: time(SECRET_ANNOTATIONS.nextStagedAt),
        }))
      : undefined;
    const previousPem = data[SECRET_KEYS.previousCaCert];
    const previous =
      previousPem === undefined
        ? undefined
        : part(SECRET_KEYS.previousCaCert, () => ({
            ca: storedCertificate(previousPem),
            promotedAtMs: time(SECRET_ANNOTATIONS.previousPromotedAt),
          }));
    return {
      state: {
        signing,
        ...(next !== undefined && { next }),
        ...(previous !== undefined && { previous }),
      },
    };
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

/**
 * The Secret's contents for `state`: our keys and annotations replace whatever the stored
 * Secret had under those names (and the legacy serving pair); other annotations stay.
 */
export function encodeAuthorities(
  state: StoredAuthorities,
  stored: SecretContents | undefined,
): SecretContents {
  const annotations: Record<string, string> = { ...stored?.annotations };
  for (const annotation of Object.values(SECRET_ANNOTATIONS))
    delete annotations[annotation];
  if (state.next)
    annotations[SECRET_ANNOTATIONS.nextStagedAt] = new Date(
      state.next.stagedAtMs,
    ).toISOString();
  if (state.previous)
    annotations[SECRET_ANNOTATIONS.previousPromotedAt] = new Date(
      state.previous.promotedAtMs,
    ).toISOString();
  return {
    data: {
      [SECRET_KEYS.caCert]: state.signing.certPem,
      [SECRET_KEYS.caKey]: state.signing.keyPem,
      ...(state.next && {
        [SECRET_KEYS.nextCaCert]: state.next.ca.certPem,
        [SECRET_KEYS.nextCaKey]: state.next.ca.keyPem,
      }),
      ...(state.previous && {
        [SECRET_KEYS.previousCaCert]: state.previous.ca.certPem,
      }),
    },
    annotations,
  };
}

/**
 * The bundle file: every CA to trust, concatenated in the order of their PEM text, so that
 * replicas holding the same CAs write the same bytes whatever their roles (a promotion
 * leaves the file, and every caBundle written from it, unchanged).
 */
export function bundlePem(cas: readonly StoredCertificate[]): string {
  return [...new Set(cas.map((ca) => ca.certPem.trim()))]
    .sort()
    .map((pem) => `${pem}\n`)
    .join('');
}
