import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { describeError } from './api-errors.js';
import { LeaderElector } from './leader-elector.js';

/** The leader-election settings every component takes from its flags. */
export interface LeadershipSettings {
  leaderElect: boolean;
  leaderElectResourceName: string;
  leaderElectResourceNamespace: string;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
}

export interface Leadership {
  /** Whether this process may act now: always with leader election off. */
  isLeading(): boolean;
  /** When this process took the lead (epoch ms), undefined while it does not lead. */
  leadingSinceMs(): number | undefined;
  /** Releases the Lease when held, so a successor takes over at its next retry. */
  stop(): Promise<void>;
}

/** The part of a pino logger leadership writes to. */
interface LeadershipLog {
  info(message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * A component's leadership: with `--leader-elect`, an elector on the configured Lease under
 * the pod's name (`POD_NAME`, else host and pid), logging each change; without it, always
 * leading. Started at once.
 */
export function startLeadership(
  settings: LeadershipSettings,
  kubeConfig: KubeConfig,
  log: LeadershipLog,
): Leadership {
  if (!settings.leaderElect) {
    const startedMs = Date.now();
    return {
      isLeading: () => true,
      leadingSinceMs: () => startedMs,
      stop: async () => undefined,
    };
  }
  let since: number | undefined;
  const elector = new LeaderElector({
    name: settings.leaderElectResourceName,
    namespace: settings.leaderElectResourceNamespace,
    leaseDurationMs: settings.leaderElectLeaseDurationMs,
    renewDeadlineMs: settings.leaderElectRenewDeadlineMs,
    retryPeriodMs: settings.leaderElectRetryPeriodMs,
    identity: process.env['POD_NAME'] ?? `${hostname()}-${process.pid}`,
    kubeConfig,
    onStartedLeading: () => {
      since = Date.now();
      log.info('started leading');
    },
    onStoppedLeading: (reason) => {
      since = undefined;
      log.warn({ reason }, 'stopped leading');
    },
    onError: (error) =>
      log.warn({}, `leader election: ${describeError(error)}`),
  });
  elector.start();
  return {
    isLeading: () => since !== undefined,
    leadingSinceMs: () => since,
    stop: () => elector.stop(),
  };
}
