import type { Span } from '@opentelemetry/api';
import { describeError } from '@tandem/kube';
import { inSpan } from '@tandem/telemetry';
import {
  isLivePod,
  podsByControllingVpa,
  updaterActsOn,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  FeatureGate,
  getUpdateMode,
  hasStartupBoost,
  type FeatureGates,
  type VerticalPodAutoscaler,
  type VpaTarget,
  gatedNativeSidecars,
} from '@tandem/vpa-api';
import type { Gauge } from '@tandem/telemetry';
import {
  podControllers,
  type TopMostControllerLookup,
} from './pod-controllers.js';
import { LeadershipGuard } from './leadership-guard.js';
import { cycleMemoryRail, type NamespaceWorkingSets } from './memory-rail.js';
import { vpaKey } from './pod-updates.js';
import {
  updateVpa,
  type VpaUpdateContext,
  type VpaUpdateTally,
} from './vpa-update.js';

export interface UpdaterCycleContext
  extends Omit<VpaUpdateContext, 'memoryRail'> {
  /** `--in-place-memory-limit-headroom`: the memory-shrink rail's margin over the working set. */
  inPlaceMemoryLimitHeadroom: number;
  /**
   * The working sets of a namespace's pods (metrics.k8s.io), read at most once a cycle per
   * namespace, on its first in-place resize that lowers a memory limit; rejects when unreadable.
   */
  memoryWorkingSets(namespace: string): Promise<NamespaceWorkingSets>;
  /** `--updater-interval`: a cycle's deadline (no rate-limiter wait goes past it). */
  intervalMs: number;
  ignoredNamespaces: ReadonlySet<string>;
  listVpas(): readonly VerticalPodAutoscaler[];
  /** Pods from the cache; those not scheduled, finished or being deleted are dropped here. */
  listPods(): readonly UpdaterPod[];
  resolveTarget(vpa: VerticalPodAutoscaler): Promise<VpaTarget>;
  /**
   * The top-most well-known or scalable controller above a pod's controlling owner
   * (`VpaTargetResolution.topMostController`); rejects when the chain cannot be read.
   */
  topMostController: TopMostControllerLookup;
  /**
   * `--use-admission-controller-status`: whether the admission webhook is alive. Undefined
   * when the check is off. Evicted pods get their recommendation only from a live webhook.
   */
  admissionControllerAlive?: () => Promise<boolean>;
  /**
   * Whether this replica still holds the leader election Lease (always, with leader election
   * off): asked right before every eviction, resize, annotation and event.
   */
  stillLeading(): boolean;
}

export interface UpdaterCycleSummary {
  /** Why nothing was done, when the cycle was skipped. */
  skipped?: string;
  /** Why the cycle stopped part-way, when it did. */
  aborted?: string;
  vpas: number;
  pods: number;
  evicted: number;
  resized: number;
  errors: number;
}

/**
 * One updater cycle from the caches: the VPAs the updater acts on, their targets' pods, and
 * each VPA's pass (`updateVpa`), in spans `updater.cycle` › `updater.vpa` › `updater.evict` /
 * `updater.resize`. A failure touching one VPA is logged and counted, and the cycle goes on.
 */
export async function runUpdaterCycle(
  context: UpdaterCycleContext,
  now: Date,
): Promise<UpdaterCycleSummary> {
  const summary: UpdaterCycleSummary = {
    vpas: 0,
    pods: 0,
    evicted: 0,
    resized: 0,
    errors: 0,
  };
  const guard = new LeadershipGuard(context.stillLeading);
  const recover: UpdaterCycleContext['recover'] = (kind, message, fields) => {
    summary.errors += 1;
    context.recover(kind, message, fields);
  };
  const countingContext: UpdaterCycleContext & VpaUpdateContext = {
    ...context,
    actions: guard.actions(context.actions),
    recordEvent: guard.recordEvent(context.recordEvent),
    recover,
    memoryRail: cycleMemoryRail(
      context.inPlaceMemoryLimitHeadroom,
      context.memoryWorkingSets,
      recover,
    ),
  };
  const step = <T>(name: string, work: (span: Span) => T | Promise<T>) => {
    const stopTimer = context.metrics.executionLatency.startTimer({
      step: name,
    });
    return Promise.resolve(inSpan(context.tracer, name, {}, work)).finally(() =>
      stopTimer(),
    );
  };
  const stopTotal = context.metrics.executionLatency.startTimer({
    step: 'total',
  });

  await inSpan(context.tracer, 'updater.cycle', {}, async (root) => {
    const alive = context.admissionControllerAlive;
    if (alive !== undefined && !(await step('AdmissionInit', alive))) {
      summary.skipped =
        'the admission controller status is stale: evicted pods would not get their recommendation';
      context.metrics.skippedCycles.inc({
        reason: 'admission-controller-status',
      });
      context.logger.warn(summary.skipped);
      root.setAttribute('skipped', summary.skipped);
      return;
    }
    const candidates = await step('ListVPAs', async (span) => {
      const acted = context
        .listVpas()
        .filter(
          (vpa) =>
            !context.ignoredNamespaces.has(vpa.metadata?.namespace ?? '') &&
            (updaterActsOn(getUpdateMode(vpa)) ||
              unboostsIn(vpa, context.settings.featureGates)),
        );
      span.setAttribute('vpas', acted.length);
      return Promise.all(
        acted.map(async (vpa) => {
          const target = await context.resolveTarget(vpa);
          if ('unsupported' in target) {
            countingContext.recover(
              'vpa-target',
              `VPA skipped: ${target.unsupported}`,
              { vpa: vpaKey(vpa) },
            );
            return { vpa, selector: undefined };
          }
          return { vpa, selector: target.selector };
        }),
      );
    });
    const pods = await step('ListPods', (span) => {
      const live = context
        .listPods()
        .filter(isLivePod)
        .map((pod) => gatedNativeSidecars(pod, context.settings.featureGates));
      span.setAttribute('pods', live.length);
      return live;
    });
    const byVpa = await step('FilterPods', async () =>
      podsByControllingVpa(
        candidates,
        await podControllers(
          pods,
          new Set(candidates.map(({ vpa }) => vpa.metadata?.namespace ?? '')),
          context.topMostController,
          (namespace, owner, error) =>
            countingContext.recover(
              'pod-controller',
              `pods not controlled, their owner chain cannot be read: ${describeError(error)}`,
              { owner: `${owner.kind} ${namespace}/${owner.name}` },
            ),
        ),
      ),
    );
    summary.vpas = byVpa.size;
    const deadlineMs = now.getTime() + context.intervalMs;
    const tallies: VpaUpdateTally[] = [];
    await step('EvictPods', async () => {
      for (const [vpa, groups] of byVpa) {
        const controlledPods = groups.reduce(
          (count, group) => count + group.pods.length,
          0,
        );
        summary.pods += controlledPods;
        const tally = await inSpan(
          context.tracer,
          'updater.vpa',
          {
            vpa: vpaKey(vpa),
            'update.mode': getUpdateMode(vpa),
            pods: controlledPods,
          },
          async (span) => {
            const result = await updateVpa(
              countingContext,
              vpa,
              groups,
              now,
              deadlineMs,
            ).catch((error: unknown) => {
              countingContext.recover(
                'vpa-update',
                `VPA pass failed: ${(error as Error).message}`,
                { vpa: vpaKey(vpa) },
              );
              return undefined;
            });
            if (result !== undefined)
              span.setAttributes({
                evicted: result.evicted,
                resized: result.resized,
              });
            return result;
          },
        );
        if (tally !== undefined) {
          tallies.push(tally);
          summary.evicted += tally.evicted;
          summary.resized += tally.resized;
        }
        if (tally?.stopped || guard.lost) break;
      }
    });
    if (guard.lost) {
      summary.aborted =
        'leadership lost: the cycle was aborted before its next write';
      context.metrics.abortedCycles.inc({ reason: 'leadership-lost' });
      context.logger.warn(summary.aborted);
      root.setAttribute('aborted', summary.aborted);
    }
    setGauges(context, tallies);
    root.setAttributes({
      vpas: summary.vpas,
      pods: summary.pods,
      evicted: summary.evicted,
      resized: summary.resized,
      errors: summary.errors,
    });
  });
  context.evaluations.endCycle();
  stopTotal();
  return summary;
}

/** Modes Off and Initial: a VPA with a startup boost is still visited, for its unboosts. */
function unboostsIn(
  vpa: VerticalPodAutoscaler,
  featureGates: FeatureGates,
): boolean {
  return (
    featureGates[FeatureGate.CPUStartupBoost] === true && hasStartupBoost(vpa)
  );
}

/** Upstream's per-cycle gauges, by VPA size (and update mode where upstream has it). */
function setGauges(
  context: UpdaterCycleContext,
  tallies: readonly VpaUpdateTally[],
): void {
  const { metrics } = context;
  const byMode = (tally: VpaUpdateTally) => ({
    vpa_size_log2: tally.sizeLabel,
    update_mode: tally.updateMode,
  });
  const bySize = (tally: VpaUpdateTally) => ({
    vpa_size_log2: tally.sizeLabel,
  });
  const sums: [
    Gauge<string>,
    (tally: VpaUpdateTally) => Record<string, string>,
    (tally: VpaUpdateTally) => number,
  ][] = [
    [metrics.controlledPods, byMode, (t) => t.controlled],
    [metrics.evictablePods, byMode, (t) => t.evictable],
    [metrics.vpasWithEvictablePods, byMode, (t) => Number(t.evictable > 0)],
    [metrics.vpasWithEvictedPods, byMode, (t) => Number(t.evicted > 0)],
    [metrics.inPlaceUpdatablePods, bySize, (t) => t.inPlaceUpdatable],
    [
      metrics.vpasWithInPlaceUpdatablePods,
      bySize,
      (t) => Number(t.inPlaceUpdatable > 0),
    ],
    [metrics.vpasWithInPlaceUpdatedPods, bySize, (t) => Number(t.resized > 0)],
  ];
  for (const [gauge, labelsOf, valueOf] of sums) {
    gauge.reset();
    for (const tally of tallies) gauge.inc(labelsOf(tally), valueOf(tally));
  }
}
