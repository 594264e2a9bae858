import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { backoffDelayMs } from '@tandem/kube';
import type { Registry } from '@tandem/telemetry';
import type { Logger } from 'pino';
import { writeFileSet } from './certificate-files.js';
import {
  bundleOf,
  checkIntervalMs,
  leafNotAfterMs,
  leafRenewal,
  planAuthorities,
  type CertificateLifetimes,
  type Leaf,
} from './certificate-plan.js';
import {
  bundlePem,
  decodeAuthorities,
  encodeAuthorities,
  storedAuthority,
  type StoredAuthorities,
  type StoredAuthority,
} from './certificate-secret.js';
import type { SecretStore } from './certificate-store.js';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';
import { errorMessage } from './error-message.js';
import { rotationMetrics } from './rotation-metrics.js';

/** Who the serving certificate is for. */
export interface ServingIdentity {
  /** Subject CN; clients check the subjectAltNames. */
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

/** The files a replica serves from, under upstream's names. */
export interface ServedFiles {
  /** Every CA of the bundle: what the caBundle and the client CA file hold. */
  readonly caBundleFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface CertificateRotationOptions {
  readonly store: SecretStore;
  /** Where the files go (an emptyDir in a pod). */
  readonly dir: string;
  readonly identity: ServingIdentity;
  readonly lifetimes: CertificateLifetimes;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** Milliseconds since the epoch; the clock by default. */
  readonly now?: () => number;
}

export interface CertificateRotation {
  readonly files: ServedFiles;
  /**
   * One pass: reads the Secret, writes what the plan changed (a conflict re-reads and
   * adopts the winner's CAs), renews this replica's serving certificate when due and
   * writes the files when they changed. Resolves true when the files are current; on an
   * error (API down, RBAC, a directory it cannot write) logs and counts it, keeps the files
   * and resolves false (a serving certificate due is still renewed from the CA last read).
   * Never rejects.
   */
  check(): Promise<boolean>;
}

/** Re-reads after a conflict before a pass gives up until the next check. */
const WRITE_ATTEMPTS = 3;

export function certificateRotation(
  options: CertificateRotationOptions,
): CertificateRotation {
  const { store, lifetimes, logger, identity } = options;
  const now = options.now ?? Date.now;
  const metrics = rotationMetrics(options.registry);
  const files: ServedFiles = {
    caBundleFile: join(options.dir, 'caCert.pem'),
    certFile: join(options.dir, 'serverCert.pem'),
    keyFile: join(options.dir, 'serverKey.pem'),
  };
  let authorities: StoredAuthorities | undefined;
  let serving: { pair: CertificatePair; leaf: Leaf } | undefined;
  let written: string | undefined;

  const newCa = (nowMs: number): StoredAuthority => {
    const pair = createCertificateAuthority({
      // Named by its time of issue, as client-go's self-signed `host@unix-seconds`, but
      // with '-': forge writes the CN as a PrintableString, which has no '@' (Go refuses it).
      commonName: `${identity.commonName}-ca-${Math.floor(nowMs / 1000)}`,
      validitySeconds: lifetimes.caValidityMs / 1000,
      issuedAt: new Date(nowMs),
    });
    return storedAuthority(pair.certPem, pair.keyPem);
  };

  const adoptAuthorities = async (): Promise<StoredAuthorities> => {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await store.read();
      const decoded =
        stored === undefined ? { state: undefined } : decodeAuthorities(stored);
      if ('problem' in decoded)
        logger.warn(
          { problem: decoded.problem },
          'the certificate Secret cannot be trusted: replacing it with a new CA',
        );
      const nowMs = now();
      const { state, changes } = planAuthorities(
        'problem' in decoded ? undefined : decoded.state,
        nowMs,
        lifetimes,
        newCa,
      );
      if (changes.length === 0) return state;
      const outcome = await store.write(
        encodeAuthorities(state, stored),
        stored?.resourceVersion,
      );
      if (outcome === 'written') {
        for (const change of changes)
          if (change !== 'retired' && change !== 'promoted')
            metrics.renewed('ca');
        logger.info(
          {
            changes,
            signing: state.signing.id,
            next: state.next?.ca.id,
            previous: state.previous?.ca.id,
          },
          'certificate Secret updated',
        );
        return state;
      }
      metrics.checked('conflict');
      logger.info(
        { attempt },
        'another replica updated the certificate Secret first: adopting its CAs',
      );
      if (attempt >= WRITE_ATTEMPTS)
        throw new Error(
          `the certificate Secret changed under each of ${WRITE_ATTEMPTS} writes`,
        );
    }
  };

  const renewLeaf = (signing: StoredAuthority): void => {
    const nowMs = now();
    const reason = leafRenewal(serving?.leaf, signing, nowMs, lifetimes);
    if (reason === undefined) return;
    const pair = issueServingCertificate(signing, {
      commonName: identity.commonName,
      dnsNames: identity.dnsNames,
      ipAddresses: identity.ipAddresses,
      validitySeconds:
        (leafNotAfterMs(signing, nowMs, lifetimes) - nowMs) / 1000,
      issuedAt: new Date(nowMs),
    });
    const certificate = new X509Certificate(pair.certPem);
    serving = {
      pair,
      leaf: {
        issuerId: signing.id,
        notAfterMs: certificate.validToDate.getTime(),
      },
    };
    metrics.renewed('leaf');
    logger.info(
      {
        reason,
        issuer: signing.id,
        fingerprint256: certificate.fingerprint256,
        notAfter: certificate.validToDate.toISOString(),
      },
      'serving certificate issued',
    );
  };

  const writeFiles = async (state: StoredAuthorities): Promise<void> => {
    if (serving === undefined) return;
    const bundle = bundlePem(bundleOf(state));
    const contents = `${bundle}\0${serving.pair.certPem}\0${serving.pair.keyPem}`;
    if (contents === written) return;
    await writeFileSet(options.dir, {
      'caCert.pem': { contents: bundle, mode: 0o644 },
      'serverCert.pem': { contents: serving.pair.certPem, mode: 0o644 },
      'serverKey.pem': { contents: serving.pair.keyPem, mode: 0o600 },
    });
    written = contents;
  };

  return {
    files,
    async check() {
      let current = authorities;
      let ok = true;
      try {
        current = await adoptAuthorities();
      } catch (error) {
        ok = false;
        metrics.checked('error');
        logger.warn(
          { reason: errorMessage(error) },
          'reading the certificate Secret failed: keeping the current CAs and files',
        );
      }
      if (current === undefined) return false;
      if (current.signing.id !== authorities?.signing.id)
        logger.info(
          {
            signing: current.signing.id,
            notAfter: new Date(current.signing.notAfterMs).toISOString(),
          },
          'certificate authority in force',
        );
      authorities = current;
      metrics.authorityExpiresAt(Math.floor(current.signing.notAfterMs / 1000));
      try {
        renewLeaf(current.signing);
        await writeFiles(current);
      } catch (error) {
        if (ok) metrics.checked('error');
        logger.warn(
          { reason: errorMessage(error), dir: options.dir },
          'writing the certificate files failed: keeping the current ones',
        );
        return false;
      }
      if (ok) metrics.checked('success');
      return ok;
    },
  };
}

/** A rotation checked on its interval until stopped. */
export interface RunningRotation {
  readonly files: ServedFiles;
  stop(): void;
}

/**
 * Checks until the first files are written (retrying with backoff: the server cannot start
 * without them), then every `checkIntervalMs(lifetimes)`, sooner with backoff after a
 * failed check.
 */
export async function startCertificateRotation(
  options: CertificateRotationOptions,
): Promise<RunningRotation> {
  const rotation = certificateRotation(options);
  const intervalMs = checkIntervalMs(options.lifetimes);
  let failures = 0;
  const delayAfter = (ok: boolean) => {
    failures = ok ? 0 : failures + 1;
    return ok
      ? intervalMs
      : Math.min(intervalMs, backoffDelayMs(failures, Math.random()));
  };
  while (!(await rotation.check()))
    await new Promise((resolve) => setTimeout(resolve, delayAfter(false)));
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      void rotation.check().then((ok) => {
        if (!stopped) schedule(delayAfter(ok));
      });
    }, delayMs);
    timer.unref();
  };
  schedule(intervalMs);
  return {
    files: rotation.files,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
