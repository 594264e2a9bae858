import { FlagError, parseDuration } from './flag-values.js';

/** client-go's leader-election flags, as every VPA component takes them. */
export interface LeaderElectionFlags {
  leaderElect: boolean;
  leaderElectResourceName: string;
  leaderElectResourceNamespace: string;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
}

/** `parseArgs` options for the leader-election flags; only the lease name differs per component. */
export function leaderElectionFlagOptions(resourceName: string) {
  return {
    'leader-elect': { type: 'boolean', default: false },
    'leader-elect-resource-name': { type: 'string', default: resourceName },
    'leader-elect-resource-namespace': {
      type: 'string',
      default: 'kube-system',
    },
    'leader-elect-lease-duration': { type: 'string', default: '15s' },
    'leader-elect-renew-deadline': { type: 'string', default: '10s' },
    'leader-elect-retry-period': { type: 'string', default: '2s' },
    // Upstream's only lock is a Lease; the flag is accepted so its manifests start unchanged.
    'leader-elect-resource-lock': { type: 'string', default: 'leases' },
  } as const;
}

/** The parsed values of `leaderElectionFlagOptions`, with client-go's timing checks. */
export function parseLeaderElection(values: {
  'leader-elect': boolean;
  'leader-elect-resource-name': string;
  'leader-elect-resource-namespace': string;
  'leader-elect-lease-duration': string;
  'leader-elect-renew-deadline': string;
  'leader-elect-retry-period': string;
  'leader-elect-resource-lock': string;
}): LeaderElectionFlags {
  const lease = parseDuration(
    values['leader-elect-lease-duration'],
    'leader-elect-lease-duration',
  );
  const renew = parseDuration(
    values['leader-elect-renew-deadline'],
    'leader-elect-renew-deadline',
  );
  const retry = parseDuration(
    values['leader-elect-retry-period'],
    'leader-elect-retry-period',
  );
  // A leader must renew before its lease runs out, retrying in between.
  if (lease <= renew)
    throw new FlagError(
      '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline',
    );
  if (renew <= retry)
    throw new FlagError(
      '--leader-elect-renew-deadline must be greater than --leader-elect-retry-period',
    );
  if (values['leader-elect-resource-lock'] !== 'leases')
    throw new FlagError(
      `--leader-elect-resource-lock: only 'leases' is supported, got '${values['leader-elect-resource-lock']}'`,
    );
  return {
    leaderElect: values['leader-elect'],
    leaderElectResourceName: values['leader-elect-resource-name'],
    leaderElectResourceNamespace: values['leader-elect-resource-namespace'],
    leaderElectLeaseDurationMs: lease,
    leaderElectRenewDeadlineMs: renew,
    leaderElectRetryPeriodMs: retry,
  };
}
