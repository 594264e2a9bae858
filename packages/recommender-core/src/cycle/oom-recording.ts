import { vpaReference } from '@tandem/vpa-api';
import { RecommenderEventReason } from '../event-reasons.js';
import {
  memoryMaxAllowedBytes,
  type ObservedOom,
  type OomResult,
  oomAtMaxAllowedMessage,
  recommendedMemoryBytes,
  type TrackedVpa,
} from '../model/index.js';
import type { CycleContext } from './cycle-context.js';

/**
 * Records one OOM kill in the model. With `--cap-oom-bump-up-at-max-allowed` the bump-up
 * stops at the container's memory maxAllowed (policy, else the global flag), so a container
 * capped below its real peak no longer files samples the cap will never let through
 * (kubernetes/autoscaler#9521; upstream's `RecordOOM`, `pkg/recommender/model/container.go`,
 * does not cap). Either way an OOM whose container is already recommended its maxAllowed is
 * counted, and reported on the VPA at most once per container per interval.
 */
export function recordObservedOom(
  context: CycleContext,
  oom: ObservedOom,
  nowMs: number,
): OomResult {
  const { model } = context.state;
  const vpa = model.controllingVpa(oom.namespace, oom.podName);
  const maxAllowedBytes =
    vpa === undefined || vpa.policyUnusable
      ? undefined
      : memoryMaxAllowedBytes(
          vpa.object,
          oom.containerName,
          context.settings.globalMaxAllowed,
        );
  const result = model.recordOom(
    oom.namespace,
    oom.podName,
    oom.containerName,
    oom.timeMs,
    oom.memoryBytes,
    context.settings.capOomBumpUpAtMaxAllowed ? maxAllowedBytes : undefined,
  );
  if (!result.ok || vpa === undefined || maxAllowedBytes === undefined)
    return result;
  const targetBytes = recommendedMemoryBytes(vpa.object, oom.containerName);
  if (targetBytes !== undefined && targetBytes >= maxAllowedBytes)
    reportOomAtMaxAllowed(context, vpa, oom, nowMs, {
      targetBytes,
      maxAllowedBytes,
    });
  return result;
}

function reportOomAtMaxAllowed(
  context: CycleContext,
  vpa: TrackedVpa,
  oom: ObservedOom,
  nowMs: number,
  numbers: { targetBytes: number; maxAllowedBytes: number },
): void {
  const { containerName, podName } = oom;
  context.observability.metrics.oomAtMaxAllowed.inc({
    namespace: vpa.namespace,
    vpa: vpa.name,
    container: containerName,
  });
  if (
    !context.state.oomAtMaxAllowedEvents.allow(
      `${vpa.key}/${containerName}`,
      nowMs,
    )
  )
    return;
  const message = oomAtMaxAllowedMessage({
    containerName,
    podName,
    requestBytes: oom.memoryBytes,
    ...numbers,
  });
  context.observability.logger.warn(
    { vpa: vpa.key, container: containerName, pod: podName },
    message,
  );
  context.observability.recordEvent?.(
    vpaReference(vpa.object),
    'Warning',
    RecommenderEventReason.OomAtMaxAllowed,
    message,
  );
}
