import { Counter, Gauge } from 'prom-client';
import type { Registry } from '@tandem/telemetry';

export type RenewedCertificate = 'leaf' | 'ca';
export type CheckOutcome = 'success' | 'conflict' | 'error';

export interface RotationMetrics {
  /** A serving certificate issued by this replica, or a CA this replica wrote to the Secret. */
  renewed(certificate: RenewedCertificate): void;
  checked(outcome: CheckOutcome): void;
  /** The signing CA now in force expires at this time (seconds since the epoch). */
  authorityExpiresAt(epochSeconds: number): void;
}

/**
 * `tandem_serving_certificate_renewals_total{certificate="leaf|ca"}`,
 * `tandem_serving_certificate_checks_total{outcome="success|conflict|error"}` and
 * `tandem_serving_certificate_authority_expiry_timestamp_seconds`, every series from zero;
 * no-ops without a registry. The serving certificate's own expiry is
 * `tandem_serving_certificate_expiry_timestamp_seconds`, set by the HTTPS server that
 * loads it (reload-metrics.ts).
 */
export function rotationMetrics(
  registry: Registry | undefined,
): RotationMetrics {
  if (registry === undefined)
    return {
      renewed: () => undefined,
      checked: () => undefined,
      authorityExpiresAt: () => undefined,
    };
  const renewals = new Counter({
    name: 'tandem_serving_certificate_renewals_total',
    help: 'Serving certificates this replica issued (leaf) and CAs it wrote to the shared Secret (ca).',
    labelNames: ['certificate'],
    registers: [registry],
  });
  for (const certificate of ['leaf', 'ca']) renewals.inc({ certificate }, 0);
  const checks = new Counter({
    name: 'tandem_serving_certificate_checks_total',
    help: 'Reads of the certificate Secret, by outcome (conflict: another replica wrote first; error: kept the current files).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['success', 'conflict', 'error'])
    checks.inc({ outcome }, 0);
  const authorityExpiry = new Gauge({
    name: 'tandem_serving_certificate_authority_expiry_timestamp_seconds',
    help: 'Expiry (notAfter) of the CA that signs this replica’s serving certificate, in seconds since the epoch.',
    registers: [registry],
  });
  return {
    renewed: (certificate) => renewals.inc({ certificate }),
    checked: (outcome) => checks.inc({ outcome }),
    authorityExpiresAt: (epochSeconds) => authorityExpiry.set(epochSeconds),
  };
}
