import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { describeError } from './api-errors.js';
import { LeaderElector, type LeaseClient } from './leader-elector.js';

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
  /**
   * Whether this process may write now: always with leader election off; with it, only while
   * the Lease is provably held by the local clock (see `LeaderElector.isLeader`), so a
   * process resumed after a pause knows at once that it lost the lead. Check it right
   * before each write.
   */
  isLeading(): boolean;
  /** When this process took the lead (epoch ms), undefined while `isLeading` is false. */
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
 * leading. Started at once. `seams` replace the Lease client and the clock in tests.
 */
export function startLeadership(
  settings: LeadershipSettings,
  kubeConfig: KubeConfig,
  log: LeadershipLog,
  seams: { client?: LeaseClient; now?: () => number } = {},
): Leadership {
  const now = seams.now ?? Date.now;
  if (!settings.leaderElect) {
    const startedMs = now();
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
    client: seams.client,
    now,
    onStartedLeading: () => {
      since = now();
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
    isLeading: () => elector.isLeader,
    leadingSinceMs: () => (elector.isLeader ? since : undefined),
    stop: () => elector.stop(),
  };
}
