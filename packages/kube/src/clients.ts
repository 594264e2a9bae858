// The parts of @tandem/kube built on client-node's generated API clients. They are a
// separate entry so that importing '@tandem/kube' never loads client-node: the metrics
// adapter, which needs none of these, stays within its memory budget (ADR 0027).
export { loadKubeConfig } from './kubeconfig.js';
export {
  DEFAULT_LEADER_ELECTION_TIMINGS,
  RETRY_JITTER_FACTOR,
  acquiredLeaseSpec,
  leaseAvailability,
  leaseHolder,
  releasedLeaseSpec,
  stepDownReason,
  timeMs,
  validateTimings,
  type LeaderElectionTimings,
  type LeaseAvailability,
  type StepDownReason,
} from './lease-decisions.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
} from './leader-elector.js';
export {
  startLeadership,
  type Leadership,
  type LeadershipSettings,
} from './leadership.js';
export { vpaClient, type VpaClient } from './vpa-client.js';
