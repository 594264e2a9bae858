import type {
  FeatureGates,
  LabelSelector,
  LimitRange,
  Quantity,
  VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { AdmissionEvent } from './admission-events.js';
import type { AdmissionReviewResponse } from './admission-review.js';

/** The metric label upstream uses for what was reviewed (`resource` of `admission_latency_seconds`). */
export type ReviewedResource = 'Pod' | 'VPA' | 'unknown';

/**
 * Upstream's `status` label: `applied` when the object was changed (for pods: their
 * resources), `skipped` when it was let through as it was, `error` when something was wrong.
 */
export type AdmissionOutcome = 'applied' | 'skipped' | 'error';

/** A VPA of the pod's namespace with its target's selector, as the app resolved it. */
export interface VpaCandidate {
  vpa: VerticalPodAutoscaler;
  /** The target's label selector; undefined when it could not be resolved (never matches). */
  selector: LabelSelector | undefined;
}

/** A controller as VPA matching compares it with a VPA's `targetRef`: kind and name. */
export interface ControllerKey {
  kind: string;
  name: string;
}

/** A controlling owner reference as the owner-chain walk follows it (`/scale` needs the API version). */
export interface ControllerReference extends ControllerKey {
  apiVersion?: string;
}

/** What `admit` needs from the cluster; every lookup is injected, so `admit` stays pure. */
export interface AdmissionContext {
  /**
   * The VPAs of a namespace, each with its target's resolved selector. `admit` matches
   * them against the pod's labels and picks the winner itself. Recommender names are not
   * filtered: upstream's admission controller applies any recommender's recommendation.
   */
  vpasInNamespace(namespace: string): Promise<ReadonlyArray<VpaCandidate>>;
  /**
   * The top-most well-known or scalable controller above a pod's controlling `owner`, as
   * upstream's `FindTopMostWellKnownOrScalable` finds it; undefined when there is none.
   * Rejects when the owner chain cannot be read (the pod is then admitted unchanged, with a
   * warning). Only asked for a pod that some VPA's selector matches.
   */
  topMostController(
    namespace: string,
    owner: ControllerReference,
  ): Promise<ControllerKey | undefined>;
  /** All LimitRange objects of a namespace. */
  limitRanges(namespace: string): Promise<readonly LimitRange[]>;
  featureGates: FeatureGates;
  /** `--max-allowed-cpu-boost`: the highest CPU request a startup boost sets; unset: no cap. */
  maxAllowedCpuBoost?: Quantity;
}

export interface AdmissionResult {
  /**
   * The AdmissionReview to send with HTTP 200. Undefined for a body that cannot be answered
   * (not a v1 AdmissionReview, or no uid to echo): send HTTP 400 with `message` instead.
   */
  review: AdmissionReviewResponse | undefined;
  httpStatus: 200 | 400;
  resource: ReviewedResource;
  outcome: AdmissionOutcome;
  /** One line saying what happened, for the log and the span. */
  message: string;
  namespace?: string;
  podName?: string;
  vpaName?: string;
  ownerKind?: string;
  ownerName?: string;
  /**
   * Pods: resources the VPA recommends that were left as declared on the containers
   * because the pod sets them at pod level (`spec.resources`); the response warns of them.
   */
  podLevelResources?: readonly string[];
  /**
   * Pods a VPA controls that were left with their resources as declared: the events to
   * write on those VPAs (`PodLeftUnchanged`). A pod no VPA controls gets none.
   */
  events?: readonly AdmissionEvent[];
}
