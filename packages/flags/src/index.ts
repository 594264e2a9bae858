export {
  FlagError,
  goStyleArgs,
  parseDuration,
  parseNumberIn,
  parsePositiveInteger,
} from './flag-values.js';
export {
  booleanFlag,
  booleanFlags,
  flagGiven,
  flagGroup,
  flagHelp,
  flagMarkdown,
  HelpRequested,
  helpRequested,
  parseArgsOptions,
  parseFlagTable,
  parseFlagValues,
  stringFlag,
  type FlagDefinition,
  type FlagKind,
  type FlagParser,
  type FlagSettings,
  type FlagTable,
} from './flag-table.js';
export { parseAddress, type ListenAddress } from './address.js';
export {
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  KLOG_NO_OP_FLAGS,
  verbosityFlag,
  verbosityLogLevel,
} from './klog.js';
export { parseFeatureGates, type KnownFeatureGate } from './feature-gates.js';
export {
  parseNamespaceFilter,
  type NamespaceFilter,
} from './namespace-filter.js';
export {
  leaderElectionFlagOptions,
  leaderElectionFlagTable,
  leaderElectionSettings,
  parseLeaderElection,
  type LeaderElectionFlags,
} from './leader-election.js';
export { parseKubeApiRate, type KubeApiRateFlags } from './kube-api-rate.js';
export { LIST_PAGE_SIZE_HELP, parseListPageSize } from './list-page-size.js';
export {
  type FlagsParser,
  type UpstreamAnswer,
  type UpstreamFlag,
  upstreamFlagAnswers,
  upstreamFlagMarkdown,
  type UpstreamFlagRow,
  upstreamCommonFlags,
  upstreamFlags,
  UPSTREAM_FEATURE_GATE_PROBES,
  upstreamLeaderElectionFlags,
  withUpstreamFlagSection,
} from './upstream-flags.js';
export {
  checkUpstreamFlagDoc,
  UPSTREAM_FLAG_DOC_REWRITE,
} from './upstream-flag-doc.js';
