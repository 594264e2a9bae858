import {
  FeatureGate,
  getUpdateMode,
  hasStartupBoost,
  PodAnnotation,
  QuantityError,
  UpdateMode,
  type LimitRange,
  type VerticalPodAutoscaler,
  vpaContainers,
} from '@tandem/vpa-api';
import { podLeftUnchanged } from './admission-events.js';
import {
  annotationSizeAfter,
  TOTAL_ANNOTATION_SIZE_LIMIT,
} from './annotation-size.js';
import type {
  AdmissionContext,
  AdmissionOutcome,
  VpaCandidate,
} from './admission-types.js';
import {
  containerUpdates,
  describeUpdates,
  resourceUpdatesAnnotation,
  type ContainerUpdate,
} from './container-updates.js';
import {
  WARNING_PREFIX,
  type Decision,
  type ReviewedNames,
} from './decision.js';
import { patchProblem } from './json-patch.js';
import { originalResourcesAnnotation } from './original-resources.js';
import { decodePod, type DecodedPod } from './pod-decoder.js';
import { gatedSidecars } from './native-sidecars.js';
import {
  podLevelResourcesMessage,
  resourcesLeftAtPodLevel,
} from './pod-level-resources.js';
import { podPatch } from './pod-patch.js';
import type { ReviewRequest } from './review-request.js';
import { describeResource } from './reviewed-resource.js';
import { capMessage, describeError } from './text.js';
import {
  withStartupBoost,
  type StartupBoostSettings,
} from './startup-boost.js';
import { unsafeUpdate } from './update-safety.js';
import { controllingVpa, matchingVpas } from './vpa-choice.js';
import { reviewedPodController } from './pod-controller.js';

type Annotation = readonly [string, string];

/**
 * Admits a pod (§6.2). Pods are always allowed: every problem only means "no change", and
 * is reported as a warning with outcome `error`. On CREATE of a pod a VPA controls, its
 * original resources are recorded (unless already recorded), and the VPA's recommendation
 * is applied to `spec.containers`, except for resources the pod declares at pod level. A
 * pod no VPA controls is left unchanged, as upstream leaves it.
 */
export async function admitPod(
  request: ReviewRequest,
  context: AdmissionContext,
): Promise<Decision> {
  const initial: ReviewedNames = namesOf(request, undefined);
  if (request.subResource !== undefined) {
    return skipped(
      `${describeResource(request)}: subresources are not mutated`,
      initial,
    );
  }
  if (request.operation !== 'CREATE') {
    return skipped(
      `operation ${request.operation ?? '(none)'}: only CREATE is mutated`,
      initial,
    );
  }
  const version = request.resource.version ?? request.kind.version;
  if (version !== 'v1') {
    return failed(
      `only v1 pods are supported, got version ${version ?? '(none)'}`,
      initial,
    );
  }
  const decoding = decodePod(request.object);
  if (decoding.decoded === undefined) {
    return failed(`malformed pod: ${decoding.problem}`, initial);
  }
  return mutate(
    request,
    gatedSidecars(decoding.decoded, context.featureGates),
    context,
  );
}

async function mutate(
  request: ReviewRequest,
  pod: DecodedPod,
  context: AdmissionContext,
): Promise<Decision> {
  const names = namesOf(request, pod);
  const finish = (outcome: Outcome) => finishPod(pod, names, outcome);
  const namespace = names.namespace;
  if (namespace === undefined) {
    return finish(failure('namespace unknown, no VPA looked up'));
  }

  const candidates = await lookUp(
    () => context.vpasInNamespace(namespace),
    'VPA lookup',
  );
  if (candidates instanceof Error) {
    return finish(failure(candidates.message));
  }
  const labels = pod.pod.metadata?.labels;
  const controller = await reviewedPodController(
    { namespace, labels, raw: pod.raw },
    candidates as VpaCandidate[],
    context,
  );
  if (controller instanceof Error) {
    return finish(failure(controller.message));
  }
  const matching = matchingVpas(candidates as VpaCandidate[], {
    labels,
    controller,
  });
  const vpa = controllingVpa(matching);
  if (vpa === undefined) {
    const message =
      matching.length === 0
        ? 'no VPA matches'
        : `no VPA applies: update mode Off for ${matching.map((off) => vpaRef(namespace, off)).join(', ')}`;
    // As upstream: a pod nobody asked Tandem to manage comes out byte-identical.
    const decision = finish({ outcome: 'skipped', message, annotations: [] });
    if (matching.length === 0) return decision;
    return {
      ...decision,
      events: matching.map((off) =>
        podLeftUnchanged(off, names, 'update mode Off', 'Normal'),
      ),
    };
  }

  const ref = vpaRef(namespace, vpa);
  const withVpa = { ...names, vpaName: vpa.metadata?.name ?? '' };
  const leftAtPodLevel = resourcesLeftAtPodLevel(pod.pod, vpa);
  const finishWithVpa = (outcome: Outcome) =>
    toldIfUnchanged(finishPod(pod, withVpa, outcome, leftAtPodLevel), vpa);
  const originals = originalsToRecord(pod);
  const observed: Annotation = [
    PodAnnotation.vpaObservedContainers,
    vpaContainers(pod.pod)
      .map(({ container }) => container.name)
      .join(', '),
  ];
  const boost = startupBoostFor(vpa, context);
  const recommending =
    getUpdateMode(vpa) !== UpdateMode.Off &&
    vpa.status?.recommendation !== undefined;
  if (!recommending && boost === undefined) {
    return finishWithVpa({
      outcome: 'skipped',
      message:
        getUpdateMode(vpa) !== UpdateMode.Off
          ? `vpa ${ref} has no recommendation yet`
          : `vpa ${ref} is in update mode Off; its startup boost needs the ${FeatureGate.CPUStartupBoost} feature gate`,
      annotations: [...originals, observed],
    });
  }

  const limitRanges = recommending
    ? await lookUp(() => context.limitRanges(namespace), 'LimitRange lookup')
    : [];
  if (limitRanges instanceof Error) {
    return finishWithVpa(
      failure(`vpa ${ref} not applied: ${limitRanges.message}`, originals),
    );
  }
  const planned = plan(
    pod,
    vpa,
    recommending ? (limitRanges as LimitRange[]) : undefined,
    boost,
  );
  if (typeof planned === 'string') {
    return finishWithVpa(
      failure(`vpa ${ref} not applied: ${planned}`, originals),
    );
  }
  if (planned.updates.length === 0) {
    return finishWithVpa({
      outcome: 'skipped',
      message: `vpa ${ref} has nothing to set on this pod`,
      annotations: [...originals, observed],
    });
  }
  return finishWithVpa({
    outcome: 'applied',
    message: `applied vpa ${ref}: ${describeUpdates(planned.updates)}`,
    updates: planned.updates,
    annotations: [
      ...originals,
      [
        PodAnnotation.vpaUpdates,
        resourceUpdatesAnnotation(withVpa.vpaName, planned.updates),
      ],
      observed,
      ...planned.boosts,
    ],
  });
}

/**
 * The `tandem.dev/original-resources` annotation to add: none when the pod already carries
 * one (a pod recreated with it keeps the values first declared).
 */
function originalsToRecord(pod: DecodedPod): Annotation[] {
  return Object.hasOwn(
    pod.pod.metadata?.annotations ?? {},
    PodAnnotation.originalResources,
  )
    ? []
    : [[PodAnnotation.originalResources, originalResourcesAnnotation(pod.pod)]];
}

/**
 * The container updates (the recommendation's where `limitRanges` are given, i.e. not in
 * update mode Off, then the startup boost) with the boost annotations, or why there are
 * none (a malformed quantity, an unsafe result).
 */
function plan(
  pod: DecodedPod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] | undefined,
  boost: StartupBoostSettings | undefined,
): { updates: ContainerUpdate[]; boosts: Annotation[] } | string {
  try {
    const recommended =
      limitRanges === undefined
        ? []
        : containerUpdates(pod.pod, vpa, limitRanges);
    const { updates, annotations } =
      boost === undefined
        ? { updates: recommended, annotations: [] }
        : withStartupBoost(pod.pod, vpa, recommended, boost);
    for (const update of updates) {
      const container =
        pod.pod.spec[update.field ?? 'containers']?.[update.index];
      const unsafe = container && unsafeUpdate(container, update);
      if (unsafe) return unsafe;
    }
    return { updates, boosts: annotations };
  } catch (error) {
    if (error instanceof QuantityError) {
      return `malformed quantity: ${describeError(error)}`;
    }
    // A VPA or LimitRange of an unexpected shape (the lookups hand over what the cache holds).
    return `cannot compute resources: ${describeError(error)}`;
  }
}

/** The boost settings when the gate is on and the VPA asks for a boost; else undefined. */
function startupBoostFor(
  vpa: VerticalPodAutoscaler,
  context: AdmissionContext,
): StartupBoostSettings | undefined {
  if (context.featureGates[FeatureGate.CPUStartupBoost] !== true)
    return undefined;
  if (!hasStartupBoost(vpa)) return undefined;
  return context.maxAllowedCpuBoost === undefined
    ? {}
    : { maxAllowedCpuBoost: context.maxAllowedCpuBoost };
}

/** An injected lookup's result as a list, or an Error saying how it failed. */
async function lookUp(
  lookup: () => Promise<unknown>,
  what: string,
): Promise<unknown[] | Error> {
  try {
    const result = await lookup();
    if (Array.isArray(result)) return result;
    return new Error(`${what} failed: returned ${typeof result}, not a list`);
  } catch (error) {
    return new Error(`${what} failed: ${describeError(error)}`);
  }
}

interface Outcome {
  outcome: AdmissionOutcome;
  message: string;
  annotations: readonly Annotation[];
  updates?: readonly ContainerUpdate[];
}

function failure(
  message: string,
  annotations: readonly Annotation[] = [],
): Outcome {
  return { outcome: 'error', message, annotations };
}

/**
 * The decision with its patch, checked: a patch that would push the annotations over the
 * API server's size limit, or that would not apply to the submitted pod, is dropped.
 * Resources left as declared because the pod sets them at pod level are reported, with
 * a warning, whatever the outcome.
 */
function finishPod(
  pod: DecodedPod,
  names: ReviewedNames,
  { outcome, message, annotations, updates = [] }: Outcome,
  leftAtPodLevel: readonly string[] = [],
): Decision {
  const reported =
    leftAtPodLevel.length > 0 ? { podLevelResources: leftAtPodLevel } : {};
  const podLevelWarnings =
    leftAtPodLevel.length > 0
      ? [warning(podLevelResourcesMessage(leftAtPodLevel))]
      : [];
  const warnings = [
    ...(outcome === 'error' ? [warning(message)] : []),
    ...podLevelWarnings,
  ];
  const size = annotationSizeAfter(pod.pod.metadata?.annotations, annotations);
  const patch = podPatch(pod, updates, annotations);
  const problem =
    size > TOTAL_ANNOTATION_SIZE_LIMIT
      ? `annotations would total ${size} bytes, over the API server's limit of ${TOTAL_ANNOTATION_SIZE_LIMIT}`
      : patch.length > 0
        ? patchProblem(pod.raw, patch)
        : undefined;
  if (problem !== undefined) {
    const dropped = `pod left unchanged, patch dropped: ${problem} (was: ${message})`;
    return {
      resource: 'Pod',
      outcome: 'error',
      message: capMessage(dropped),
      allowed: true,
      warnings: [warning(dropped), ...podLevelWarnings],
      names,
      ...reported,
    };
  }
  return {
    resource: 'Pod',
    outcome,
    message: capMessage(message),
    allowed: true,
    ...(patch.length > 0 && { patch }),
    ...(warnings.length > 0 && { warnings }),
    names,
    ...reported,
  };
}

/** A pod its VPA leaves with the resources it declared earns an event on that VPA saying why. */
function toldIfUnchanged(
  decision: Decision,
  vpa: VerticalPodAutoscaler,
): Decision {
  if (decision.outcome === 'applied') return decision;
  const type = decision.outcome === 'error' ? 'Warning' : 'Normal';
  return {
    ...decision,
    events: [
      podLeftUnchanged(vpa, decision.names ?? {}, decision.message, type),
    ],
  };
}

function skipped(message: string, names: ReviewedNames): Decision {
  return { resource: 'Pod', outcome: 'skipped', message, allowed: true, names };
}

function failed(message: string, names: ReviewedNames): Decision {
  return {
    resource: 'Pod',
    outcome: 'error',
    message: capMessage(message),
    allowed: true,
    warnings: [warning(message)],
    names,
  };
}

function warning(message: string): string {
  return capMessage(`${WARNING_PREFIX}${message}`);
}

/**
 * Where the pod is. The namespace comes from the request: pods created by a controller
 * often have no `metadata.namespace` yet. A pod without a name (still to be generated) is
 * called `<generateName>%`, as upstream logs it.
 */
function namesOf(
  request: ReviewRequest,
  pod: DecodedPod | undefined,
): ReviewedNames {
  const metadata = pod?.pod.metadata;
  const namespace = request.namespace ?? (metadata?.namespace || undefined);
  const podName =
    (metadata?.name || undefined) ??
    request.name ??
    (metadata?.generateName ? `${metadata.generateName}%` : undefined);
  return {
    ...(namespace !== undefined && { namespace }),
    ...(podName !== undefined && { podName }),
    ...(pod?.controller && {
      ownerKind: pod.controller.kind,
      ownerName: pod.controller.name,
    }),
  };
}

function vpaRef(namespace: string, vpa: VerticalPodAutoscaler): string {
  return `${namespace}/${vpa.metadata?.name ?? ''}`;
}
