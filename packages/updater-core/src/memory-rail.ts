import type { AddOperation } from '@tandem/admission';
import { describeError } from '@tandem/kube';
import {
  describeMemoryLimitKept,
  guardMemoryShrink,
  podId,
  type UpdaterPod,
} from '@tandem/update-decisions';
import { UpdaterEventReason } from './event-reasons.js';
import { tellNotUpdated } from './pod-events.js';
import type { PodEvaluation } from './pod-evaluations.js';
import type { PodUpdateContext, PodUpdateScope } from './pod-updates.js';

/** Working sets in bytes of a namespace's pods, by pod name, then container name. */
export type NamespaceWorkingSets = ReadonlyMap<
  string,
  ReadonlyMap<string, number>
>;

/** What the memory-shrink rail needs: its headroom and the pods' working sets. */
export interface MemoryRail {
  /** `--in-place-memory-limit-headroom`. */
  headroom: number;
  /** The pod's containers' working sets; undefined when unknown (no metrics). */
  workingSets(
    pod: UpdaterPod,
  ): Promise<ReadonlyMap<string, number> | undefined>;
}

/**
 * The rail of one cycle: each namespace's working sets are read (metrics.k8s.io) on the
 * first resize there and reused by the cycle's other resizes, so a cycle without resizes
 * reads no metrics. A namespace whose metrics cannot be read is a recovered error, once,
 * and its pods' working sets are unknown: no memory limit shrinks there this cycle.
 */
export function cycleMemoryRail(
  headroom: number,
  read: (namespace: string) => Promise<NamespaceWorkingSets>,
  recover: PodUpdateContext['recover'],
): MemoryRail {
  const byNamespace = new Map<
    string,
    Promise<NamespaceWorkingSets | undefined>
  >();
  return {
    headroom,
    async workingSets(pod) {
      const namespace = pod.metadata?.namespace ?? '';
      let read$ = byNamespace.get(namespace);
      if (read$ === undefined) {
        read$ = read(namespace).catch((error: unknown) => {
          recover(
            'pod-metrics',
            `memory working sets unreadable, no memory limit shrinks in place in the namespace this cycle: ${describeError(error)}`,
            { namespace },
          );
          return undefined;
        });
        byNamespace.set(namespace, read$);
      }
      return (await read$)?.get(pod.metadata?.name ?? '');
    },
  };
}

/**
 * The pod's resize patch through the memory-shrink rail (`guardMemoryShrink`). A patch that
 * lowers no memory limit (`PodEvaluation.lowersMemoryLimit`, kept with the evaluation) goes
 * as it is, and no metrics are read: a steady cluster's resizes raise limits or leave them.
 * Each memory limit kept is told: an `InPlaceMemoryLimitKept` event on the pod and a span
 * event on the active span with the numbers, a log line and
 * `tandem_updater_in_place_memory_limits_kept_total`.
 */
export async function guardedResizePatch(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  evaluation: Pick<PodEvaluation, 'resizePatch' | 'lowersMemoryLimit'>,
): Promise<AddOperation[]> {
  const patch = evaluation.resizePatch();
  if (!evaluation.lowersMemoryLimit()) return patch;
  const { memoryRail } = context;
  const guarded = guardMemoryShrink(
    pod,
    patch,
    await memoryRail.workingSets(pod),
    memoryRail.headroom,
  );
  for (const kept of guarded.kept) {
    const why = describeMemoryLimitKept(kept);
    context.metrics.inPlaceMemoryLimitsKept.inc({
      reason: kept.reason,
      vpa_name: scope.vpa.metadata?.name ?? '',
      vpa_namespace: scope.vpa.metadata?.namespace ?? '',
    });
    context.logger.info(
      { pod: podId(pod), reason: kept.reason, why },
      'memory limit kept out of the in-place resize',
    );
    tellNotUpdated(
      context,
      scope,
      pod,
      UpdaterEventReason.InPlaceMemoryLimitKept,
      `${why}; the rest of the resize is applied`,
    );
  }
  return guarded.patch;
}
