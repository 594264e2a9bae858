import {
  boostAnnotationValue,
  containerStartupBoost,
  ContainerScalingMode,
  ControlledValues,
  getContainerPolicy,
  getControlledValues,
  parseQuantity,
  podLevelResourceNames,
  proportionalLimit,
  Quantity,
  startupBoostAnnotationKey,
  StartupBoostType,
  type Container,
  type GenericStartupBoost,
  type Pod,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { sortedByName, type ContainerUpdate } from './container-updates.js';

/** `--max-allowed-cpu-boost`: no boosted request goes above it; undefined: no cap. */
export interface StartupBoostSettings {
  maxAllowedCpuBoost?: Quantity;
}

export interface BoostedPlan {
  updates: ContainerUpdate[];
  /** `vpaCpuStartupBoost/<container>` for every boosted container, with its original values. */
  annotations: [string, string][];
}

const ONE_MILLI = 1n;

/**
 * The CPU startup boost on top of the recommendation's updates, as upstream's
 * `applyCPUStartupBoost` (`pkg/admission-controller/resource/pod/patch/resource_updates.go`)
 * computes it, for each container that has a boost and is not in scaling mode Off: the
 * base is the recommended CPU request, or the declared one when there is none; Factor
 * multiplies it (truncated to the millicore), Quantity adds to it; the result is capped at
 * `--max-allowed-cpu-boost`. RequestsOnly keeps the request 1m under the CPU limit;
 * RequestsAndLimits scales the CPU limit from the declared request and limit. The
 * container's declared cpu/memory are recorded in `vpaCpuStartupBoost/<container>`.
 * Containers of a pod that declares CPU at pod level are not boosted (the API server would
 * refuse container requests above the pod's). Throws `QuantityError` for a bad quantity.
 */
export function withStartupBoost(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  updates: readonly ContainerUpdate[],
  settings: StartupBoostSettings,
): BoostedPlan {
  const annotations: [string, string][] = [];
  if (podLevelResourceNames(pod).includes('cpu'))
    return { updates: [...updates], annotations };
  // Only `spec.containers` are boosted, as upstream's loop; native sidecars keep their update.
  const isRegular = (update: ContainerUpdate) =>
    update.field === undefined || update.field === 'containers';
  const byIndex = new Map(
    updates.filter(isRegular).map((update) => [update.index, update]),
  );
  pod.spec.containers.forEach((container, index) => {
    const policy = getContainerPolicy(vpa, container.name);
    if (policy?.mode === ContainerScalingMode.Off) return;
    const cpu = containerStartupBoost(vpa, container.name)?.cpu;
    if (!cpu) return;
    byIndex.set(
      index,
      boostedUpdate(
        container,
        index,
        byIndex.get(index),
        cpu,
        getControlledValues(policy),
        settings,
      ),
    );
    annotations.push([
      startupBoostAnnotationKey(container.name),
      boostAnnotationValue(container),
    ]);
  });
  return {
    updates: [
      ...[...byIndex.values()].sort((a, b) => a.index - b.index),
      ...updates.filter((update) => !isRegular(update)),
    ],
    annotations,
  };
}

/** The boosted CPU request: base × factor (truncated) or base + quantity, then capped. */
export function boostedCpu(
  base: Quantity,
  boost: GenericStartupBoost,
  settings: StartupBoostSettings,
): Quantity {
  const baseMilli = base.milliValue();
  let milli: bigint;
  if (boost.type === StartupBoostType.Quantity) {
    milli = baseMilli + parseQuantity(boost.quantity ?? '0').milliValue();
  } else {
    // Upstream defaults an empty type to Factor; validation requires the field.
    const factor = boost.factor ?? 1;
    milli = BigInt(Math.trunc(Number(baseMilli) * factor));
  }
  const boosted = Quantity.fromMilli(milli, 'DecimalSI');
  const max = settings.maxAllowedCpuBoost;
  return max !== undefined && !max.isZero() && boosted.cmp(max) > 0
    ? max
    : boosted;
}

function boostedUpdate(
  container: Container,
  index: number,
  update: ContainerUpdate | undefined,
  boost: GenericStartupBoost,
  controlledValues: ControlledValues,
  settings: StartupBoostSettings,
): ContainerUpdate {
  const declared = container.resources ?? {};
  const declaredRequest = quantityOf(declared.requests?.['cpu']);
  const declaredLimit = quantityOf(declared.limits?.['cpu']);
  const recommended = quantityOf(update?.requests['cpu']);
  const base =
    recommended !== undefined && !recommended.isZero()
      ? recommended
      : (declaredRequest ?? Quantity.fromMilli(0n, 'DecimalSI'));
  let request = boostedCpu(base, boost, settings);
  let limit: Quantity | undefined;
  if (controlledValues === ControlledValues.RequestsOnly) {
    // Upstream `capStartupBoostToContainerLimit`: 1m under the limit keeps the QoS class.
    if (
      declaredLimit !== undefined &&
      request.milliValue() > declaredLimit.milliValue()
    )
      request =
        declaredLimit.milliValue() > ONE_MILLI
          ? Quantity.fromMilli(
              declaredLimit.milliValue() - ONE_MILLI,
              'DecimalSI',
            )
          : declaredLimit;
  } else {
    // Upstream scales from the declared request and limit, with no LimitRange default.
    limit = proportionalLimit(
      'cpu',
      { request: declaredRequest, limit: declaredLimit },
      request,
    ).limit;
  }
  const requests = sortedByName({
    ...update?.requests,
    cpu: request.toString(),
  });
  const limits = sortedByName({
    ...update?.limits,
    ...(limit !== undefined && { cpu: limit.toString() }),
  });
  return {
    ...update,
    index,
    requests,
    limits,
    items: [
      ...notesOf(update),
      ...Object.keys(requests).map((name) => `${name} request`),
      ...Object.keys(limits).map((name) => `${name} limit`),
    ],
  };
}

/** The capping and limit notes of an update: its items before the `<res> request/limit` ones. */
function notesOf(update: ContainerUpdate | undefined): string[] {
  if (update === undefined) return [];
  const listed =
    Object.keys(update.requests).length + Object.keys(update.limits).length;
  return update.items.slice(0, update.items.length - listed);
}

function quantityOf(text: string | undefined): Quantity | undefined {
  return text === undefined ? undefined : parseQuantity(text);
}
