export {
  FlagError,
  goStyleArgs,
  parseDuration,
  parseNumberIn,
  parsePositiveInteger,
} from './flag-values.js';
export { parseAddress, type ListenAddress } from './address.js';
export {
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  verbosityLogLevel,
} from './klog.js';
export { parseFeatureGates, type KnownFeatureGate } from './feature-gates.js';
export {
  parseNamespaceFilter,
  type NamespaceFilter,
} from './namespace-filter.js';
export {
  leaderElectionFlagOptions,
  parseLeaderElection,
  type LeaderElectionFlags,
} from './leader-election.js';
