import {
  booleanFlag,
  type FlagSettings,
  flagGroup,
  parseArgsOptions,
  parseFlagValues,
  stringFlag,
} from './flag-table.js';
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

/**
 * The leader-election flags with client-go's defaults and help; only the lease name differs
 * per component.
 */
export function leaderElectionFlagTable(resourceName: string) {
  return flagGroup('Leader election', {
    'leader-elect': booleanFlag(
      false,
      'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.',
    ),
    'leader-elect-lease-duration': stringFlag(
      '15s',
      'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled.',
      parseDuration,
    ),
    'leader-elect-renew-deadline': stringFlag(
      '10s',
      'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled.',
      parseDuration,
    ),
    'leader-elect-retry-period': stringFlag(
      '2s',
      'The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled.',
      parseDuration,
    ),
    // Upstream's only lock is a Lease; the flag is accepted so its manifests start unchanged.
    'leader-elect-resource-lock': stringFlag(
      'leases',
      "The type of resource object that is used for locking during leader election. Supported options are 'leases'.",
    ),
    'leader-elect-resource-name': stringFlag(
      resourceName,
      'The name of resource object that is used for locking during leader election.',
    ),
    'leader-elect-resource-namespace': stringFlag(
      'kube-system',
      'The namespace of resource object that is used for locking during leader election.',
    ),
  });
}

/** `parseArgs` options for the leader-election flags; only the lease name differs per component. */
export function leaderElectionFlagOptions(resourceName: string) {
  return parseArgsOptions(leaderElectionFlagTable(resourceName));
}

/** The parsed leader-election flags, with client-go's timing checks. */
export function leaderElectionSettings(
  settings: FlagSettings<ReturnType<typeof leaderElectionFlagTable>>,
): LeaderElectionFlags {
  const lease = settings['leader-elect-lease-duration'];
  const renew = settings['leader-elect-renew-deadline'];
  const retry = settings['leader-elect-retry-period'];
  // A leader must renew before its lease runs out, retrying in between.
  if (lease <= renew)
    throw new FlagError(
      '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline',
    );
  if (renew <= retry)
    throw new FlagError(
      '--leader-elect-renew-deadline must be greater than --leader-elect-retry-period',
    );
  if (settings['leader-elect-resource-lock'] !== 'leases')
    throw new FlagError(
      `--leader-elect-resource-lock: only 'leases' is supported, got '${settings['leader-elect-resource-lock']}'`,
    );
  return {
    leaderElect: settings['leader-elect'],
    leaderElectResourceName: settings['leader-elect-resource-name'],
    leaderElectResourceNamespace: settings['leader-elect-resource-namespace'],
    leaderElectLeaseDurationMs: lease,
    leaderElectRenewDeadlineMs: renew,
    leaderElectRetryPeriodMs: retry,
  };
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
  return leaderElectionSettings(
    parseFlagValues(
      leaderElectionFlagTable(values['leader-elect-resource-name']),
      values,
    ),
  );
}
