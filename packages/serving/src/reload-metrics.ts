import { Counter, Gauge } from 'prom-client';
import type { Registry } from '@tandem/telemetry';

export type ReloadOutcome = 'success' | 'error';

export interface ReloadMetrics {
  reloaded(outcome: ReloadOutcome): void;
  /** The serving certificate now in force expires at this time (seconds since epoch). */
  expiresAt(epochSeconds: number): void;
}

const RELOADS = 'tandem_serving_certificate_reloads_total';
const EXPIRY = 'tandem_serving_certificate_expiry_timestamp_seconds';

/**
 * `tandem_serving_certificate_reloads_total{outcome}` and
 * `tandem_serving_certificate_expiry_timestamp_seconds` on `registry`, or no-ops
 * without one. Servers sharing a registry share the metrics (registering a name twice
 * would throw); the expiry gauge then shows the certificate loaded last.
 */
export function reloadMetrics(registry: Registry | undefined): ReloadMetrics {
  if (registry === undefined) {
    return { reloaded: () => undefined, expiresAt: () => undefined };
  }
  const reloads =
    (registry.getSingleMetric(RELOADS) as Counter<'outcome'> | undefined) ??
    new Counter({
      name: RELOADS,
      help: 'Certificate reloads of the HTTPS server, by outcome (an error keeps the previous certificate).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  // Both series exist from the start, so rate() and alerts see a zero, not nothing.
  reloads.inc({ outcome: 'success' }, 0);
  reloads.inc({ outcome: 'error' }, 0);
  const expiry =
    (registry.getSingleMetric(EXPIRY) as Gauge | undefined) ??
    new Gauge({
      name: EXPIRY,
      help: 'Expiry (notAfter) of the certificate the HTTPS server presents, in seconds since the epoch.',
      registers: [registry],
    });
  return {
    reloaded: (outcome) => reloads.inc({ outcome }),
    expiresAt: (epochSeconds) => expiry.set(epochSeconds),
  };
}
