import type { AdmissionEvent } from './admission-events.js';
import type { ResponseStatus } from './admission-review.js';
import type {
  AdmissionOutcome,
  AdmissionResult,
  ReviewedResource,
} from './admission-types.js';
import type { AddOperation } from './json-patch.js';

/** Names that locate the reviewed object in logs and spans. */
export type ReviewedNames = Pick<
  AdmissionResult,
  'namespace' | 'podName' | 'vpaName' | 'ownerKind' | 'ownerName'
>;

/** What a handler decided about one request, before it is put into an AdmissionReview. */
export interface Decision {
  resource: ReviewedResource;
  outcome: AdmissionOutcome;
  message: string;
  allowed: boolean;
  /** Already checked against the submitted object; absent or empty means no patch. */
  patch?: readonly AddOperation[];
  warnings?: readonly string[];
  status?: ResponseStatus;
  names?: ReviewedNames;
  /** Pods: resources left as declared because the pod sets them at pod level. */
  podLevelResources?: readonly string[];
  /** Pods a VPA controls, left as declared: why, on each such VPA. */
  events?: readonly AdmissionEvent[];
}

/** Prefix of every warning, so a user reading kubectl's output knows where it comes from. */
export const WARNING_PREFIX = 'VPA webhook: ';
