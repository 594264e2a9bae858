import type { OriginalsSource } from './pod-for-metrics.js';

/** A pod an observation is about. */
export interface PodRef {
  namespace: string;
  pod: string;
}

/**
 * What answering a request saw that the app counts and logs; the answer itself is in the
 * status code and body.
 */
export interface MetricObservations {
  /** Pods measured, by where their declared resources came from (one count per request). */
  originals: Partial<Record<OriginalsSource, number>>;
  /** Pods whose original-resources annotation was unreadable, and the fallback used. */
  malformedAnnotations: (PodRef & {
    annotation: string;
    fallback: OriginalsSource;
  })[];
  /** Pods an `*_original_*` metric measured against their current requests, for want of better. */
  currentRequests: PodRef[];
  /** When a 200 carried no item although pods matched: why (the first five reasons). */
  noValue?: string[];
  /** The usage source failed (the answer is a 503): its error. */
  sourceFailure?: string;
  /** The Deployment of an Object metric could not be read (the answer is a 503): why. */
  deploymentFailure?: string;
}
