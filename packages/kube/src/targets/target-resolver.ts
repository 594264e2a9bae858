import type { VerticalPodAutoscaler, VpaTarget } from '@tandem/vpa-api';
import { describeError } from '../api-errors.js';
import { NotScalableError, type ScaleTargetRef } from './scale-target.js';
import {
  isWellKnownKind,
  type TargetObject,
  type WellKnownKind,
} from './well-known-kinds.js';

/** The two ways to read a target; each resolves undefined for a target that does not exist. */
export interface TargetReaders {
  wellKnown: (
    kind: WellKnownKind,
    namespace: string,
    name: string,
  ) => Promise<TargetObject | undefined>;
  scalable: (
    ref: ScaleTargetRef,
    namespace: string,
  ) => Promise<TargetObject | undefined>;
}

/**
 * Finds the pod selector of a VPA's target, as upstream's controller fetcher does: a
 * well-known controller from its cache, any other kind through its scale subresource. A
 * target that cannot be read, has no selector, or is controlled by a well-known or scalable
 * controller (so it is not the topmost one) is unsupported, with upstream's message; the
 * VPA then matches no pods and gets ConfigUnsupported. A controlling owner of neither kind
 * (an operator's custom resource without `/scale`) leaves the target the topmost one, as
 * upstream's owner-chain walk finds.
 */
export function targetResolver(
  readers: TargetReaders,
): (vpa: VerticalPodAutoscaler) => Promise<VpaTarget> {
  return async (vpa) => {
    const namespace = vpa.metadata?.namespace ?? '';
    const ref = vpa.spec?.targetRef ?? { kind: '', name: '' };
    const { kind, name } = ref;
    let target: TargetObject | undefined;
    try {
      target = isWellKnownKind(kind)
        ? await readers.wellKnown(kind, namespace, name)
        : await readers.scalable(ref, namespace);
    } catch (error) {
      return {
        unsupported: `Cannot read targetRef. Reason: ${describeError(error)}`,
      };
    }
    if (target === undefined)
      return {
        unsupported: `Cannot read targetRef. Reason: ${kind} ${namespace}/${name} does not exist`,
      };
    const owner = target.ownerReferences?.find(
      (reference) => reference.controller === true,
    );
    if (owner !== undefined) {
      let ownerCounts: boolean;
      try {
        ownerCounts = await isWellKnownOrScalable(readers, owner, namespace);
      } catch (error) {
        return {
          unsupported: `Cannot read targetRef. Reason: its parent ${owner.kind} ${namespace}/${owner.name}: ${describeError(error)}`,
        };
      }
      if (ownerCounts)
        return {
          unsupported: `The target ${kind} ${namespace}/${name} has a parent controller (${owner.kind} ${owner.name}) but it should point to a topmost well-known or scalable controller`,
        };
    }
    if (target.selector === undefined)
      return {
        unsupported: `Cannot read targetRef. Reason: ${kind} ${namespace}/${name} has no selector`,
      };
    return { selector: target.selector };
  };
}

/**
 * Whether a controlling owner is a controller upstream would point the VPA at instead: a
 * well-known kind, or an existing object with a scale subresource. A kind without one
 * cannot be read further (its own owners stay unknown), so the walk ends there.
 */
async function isWellKnownOrScalable(
  readers: TargetReaders,
  owner: { apiVersion?: string; kind: string; name: string },
  namespace: string,
): Promise<boolean> {
  if (isWellKnownKind(owner.kind)) return true;
  try {
    return (await readers.scalable(owner, namespace)) !== undefined;
  } catch (error) {
    if (error instanceof NotScalableError) return false;
    throw error;
  }
}
