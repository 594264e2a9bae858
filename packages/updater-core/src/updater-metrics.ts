import { Counter, Gauge, Histogram, type Registry } from '@tandem/telemetry';

/** Upstream's `vpa_updater_*` metrics, and Tandem's counts of what it met. */
export interface UpdaterMetrics {
  controlledPods: Gauge<'vpa_size_log2' | 'update_mode'>;
  evictablePods: Gauge<'vpa_size_log2' | 'update_mode'>;
  vpasWithEvictablePods: Gauge<'vpa_size_log2' | 'update_mode'>;
  vpasWithEvictedPods: Gauge<'vpa_size_log2' | 'update_mode'>;
  evictedPods: Counter<
    'vpa_size_log2' | 'update_mode' | 'vpa_name' | 'vpa_namespace'
  >;
  failedEvictionAttempts: Counter<
    'vpa_size_log2' | 'update_mode' | 'reason' | 'vpa_name' | 'vpa_namespace'
  >;
  inPlaceUpdatablePods: Gauge<'vpa_size_log2'>;
  vpasWithInPlaceUpdatablePods: Gauge<'vpa_size_log2'>;
  vpasWithInPlaceUpdatedPods: Gauge<'vpa_size_log2'>;
  inPlaceUpdatedPods: Counter<'vpa_size_log2' | 'vpa_name' | 'vpa_namespace'>;
  failedInPlaceUpdateAttempts: Counter<
    'vpa_size_log2' | 'reason' | 'vpa_name' | 'vpa_namespace'
  >;
  inPlaceInfeasibleSkipPods: Counter<'vpa_size_log2'>;
  executionLatency: Histogram<'step'>;
  /** Tandem: evictions a PodDisruptionBudget refused (429), retried next cycle. */
  evictionsBlockedByBudget: Counter<'vpa_name' | 'vpa_namespace'>;
  /** Tandem: failures recovered from (API down, pod gone, bad quantity…), by kind. */
  recoveredErrors: Counter<'kind'>;
  /** Tandem: cycles that changed nothing on purpose, by reason. */
  skippedCycles: Counter<'reason'>;
  /** Tandem: cycles stopped part-way, by reason (`leadership-lost`). */
  abortedCycles: Counter<'reason'>;
  /** Tandem: what `--dry-run` would have done, by action. */
  dryRunActions: Counter<'action'>;
  /** Tandem: memory limits the shrink rail left out of in-place resizes, by reason. */
  inPlaceMemoryLimitsKept: Counter<'reason' | 'vpa_name' | 'vpa_namespace'>;
}

// A cycle takes milliseconds to seconds; its deadline is one interval (1 min by default).
const LATENCY_BUCKETS = [
  0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

export function updaterMetrics(registry: Registry): UpdaterMetrics {
  const registers = [registry];
  const perVpaSize = ['vpa_size_log2', 'update_mode'] as const;
  const perVpa = ['vpa_name', 'vpa_namespace'] as const;
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
  ) =>
    new Gauge<L>({ name: `vpa_updater_${name}`, help, labelNames, registers });
  const counter = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
  ) => new Counter<L>({ name, help, labelNames, registers });
  return {
    controlledPods: gauge(
      'controlled_pods_total',
      'Number of Pods controlled by VPA updater.',
      perVpaSize,
    ),
    evictablePods: gauge(
      'evictable_pods_total',
      'Number of Pods matching evicition criteria.',
      perVpaSize,
    ),
    vpasWithEvictablePods: gauge(
      'vpas_with_evictable_pods_total',
      'Number of VPA objects with at least one Pod matching evicition criteria.',
      perVpaSize,
    ),
    vpasWithEvictedPods: gauge(
      'vpas_with_evicted_pods_total',
      'Number of VPA objects with at least one evicted Pod.',
      perVpaSize,
    ),
    evictedPods: counter(
      'vpa_updater_evicted_pods_total',
      'Number of Pods evicted by Updater to apply a new recommendation.',
      [...perVpaSize, ...perVpa],
    ),
    failedEvictionAttempts: counter(
      'vpa_updater_failed_eviction_attempts_total',
      'Number of failed attempts to update Pods by eviction',
      [...perVpaSize, 'reason', ...perVpa],
    ),
    inPlaceUpdatablePods: gauge(
      'in_place_updatable_pods_total',
      'Number of Pods matching in place update criteria.',
      ['vpa_size_log2'],
    ),
    vpasWithInPlaceUpdatablePods: gauge(
      'vpas_with_in_place_updatable_pods_total',
      'Number of VPA objects with at least one Pod matching in place update criteria.',
      ['vpa_size_log2'],
    ),
    vpasWithInPlaceUpdatedPods: gauge(
      'vpas_with_in_place_updated_pods_total',
      'Number of VPA objects with at least one in-place updated Pod.',
      ['vpa_size_log2'],
    ),
    inPlaceUpdatedPods: counter(
      'vpa_updater_in_place_updated_pods_total',
      'Number of Pods updated in-place by Updater to apply a new recommendation.',
      ['vpa_size_log2', ...perVpa],
    ),
    failedInPlaceUpdateAttempts: counter(
      'vpa_updater_failed_in_place_update_attempts_total',
      'Number of failed attempts to update Pods in-place.',
      ['vpa_size_log2', 'reason', ...perVpa],
    ),
    inPlaceInfeasibleSkipPods: counter(
      'vpa_updater_in_place_infeasible_skip_pods_total',
      'Number of Pods skipped because their last in-place resize was infeasible.',
      ['vpa_size_log2'],
    ),
    executionLatency: new Histogram({
      name: 'vpa_updater_execution_latency_seconds',
      help: 'Time spent in various parts of VPA Updater main loop.',
      labelNames: ['step'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    evictionsBlockedByBudget: counter(
      'tandem_updater_evictions_blocked_total',
      'Evictions a PodDisruptionBudget refused (HTTP 429); the next cycle tries again',
      perVpa,
    ),
    recoveredErrors: counter(
      'tandem_updater_recovered_errors_total',
      'Failures the updater logged and recovered from, by kind',
      ['kind'],
    ),
    skippedCycles: counter(
      'tandem_updater_skipped_cycles_total',
      'Cycles that changed nothing on purpose, by reason',
      ['reason'],
    ),
    abortedCycles: counter(
      'tandem_updater_cycles_aborted_total',
      'Cycles stopped part-way, their remaining writes not made, by reason',
      ['reason'],
    ),
    dryRunActions: counter(
      'tandem_updater_dry_run_actions_total',
      'Evictions and resizes --dry-run logged instead of doing, by action',
      ['action'],
    ),
    inPlaceMemoryLimitsKept: counter(
      'tandem_updater_in_place_memory_limits_kept_total',
      'Memory limits left out of in-place resizes because they would fall under the working set plus headroom, or the working set is unknown, by reason',
      ['reason', ...perVpa],
    ),
  };
}

/** Upstream's `vpa_size_log2` label: ⌊log₂ pods⌋, capped at 20 (0 for 0 or 1 pod). */
export function vpaSizeLog2(pods: number): string {
  return String(pods <= 1 ? 0 : Math.min(Math.floor(Math.log2(pods)), 20));
}
