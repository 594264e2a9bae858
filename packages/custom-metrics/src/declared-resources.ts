import {
  parseOriginalResources,
  PodAnnotation,
  type OriginalResources,
} from '@tandem/vpa-api';
import type {
  ContainerResources,
  OriginalsSource,
  PodForMetrics,
} from './pod-for-metrics.js';

/** A container's declared requests and limits, and where they were found. */
export interface DeclaredResources {
  requests: Readonly<Record<string, string>>;
  limits: Readonly<Record<string, string>>;
  source: OriginalsSource;
}

/** Where a pod's declared ("original") values are looked up. */
export interface PodOriginals {
  /** The best source the pod offers: what a container present everywhere is read from. */
  source: OriginalsSource;
  /** The parser's message when the annotation is present but unreadable. */
  malformedAnnotation?: string;
  /** The declared values of `container`, from the best source that knows it. */
  declared(container: ContainerResources): DeclaredResources;
}

const TRUST_ORDER: readonly OriginalsSource[] = [
  'annotation',
  'template',
  'current',
];

/**
 * The pod's originals. The annotation is the exact record of what was submitted, so it
 * wins; a malformed one is reported and ignored rather than half-read. The template is
 * next: the VPA mutates pods, never their controller's template. The pod's current spec
 * is the last resort, and the caller learns it was used.
 *
 * A source decides a container as a whole: a limit the annotation lacks is a limit the
 * user did not declare, and is never filled in from a later source (which could be a
 * LimitRange default the VPA has since scaled).
 */
export function podOriginals(pod: PodForMetrics): PodOriginals {
  const text = pod.annotations[PodAnnotation.originalResources];
  const parsed = text === undefined ? undefined : parseOriginalResources(text);
  const annotation: OriginalResources | undefined =
    parsed instanceof Error ? undefined : parsed;
  const template = pod.templateContainers;
  const source: OriginalsSource =
    annotation !== undefined
      ? 'annotation'
      : template !== undefined
        ? 'template'
        : 'current';
  return {
    source,
    ...(parsed instanceof Error ? { malformedAnnotation: parsed.message } : {}),
    declared(container) {
      const recorded = annotation?.get(container.name);
      if (recorded !== undefined) return { ...recorded, source: 'annotation' };
      const templated = template?.find((c) => c.name === container.name);
      if (templated !== undefined) {
        return {
          requests: templated.requests,
          limits: templated.limits,
          source: 'template',
        };
      }
      return {
        requests: container.requests,
        limits: container.limits,
        source: 'current',
      };
    },
  };
}

/** The less trusted of two sources. */
export function lessTrusted(
  a: OriginalsSource,
  b: OriginalsSource,
): OriginalsSource {
  return TRUST_ORDER.indexOf(a) >= TRUST_ORDER.indexOf(b) ? a : b;
}
