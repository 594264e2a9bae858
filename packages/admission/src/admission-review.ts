/**
 * The `admission.k8s.io/v1` AdmissionReview the webhook answers with. Only the fields the
 * webhook sets are modelled; the API server ignores the rest.
 */

export const ADMISSION_REVIEW_API_VERSION = 'admission.k8s.io/v1';
export const ADMISSION_REVIEW_KIND = 'AdmissionReview';

/** One `metav1.StatusCause`: which field is wrong and why (the API server shows them to users). */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** The `metav1.Status` of a denied request. */
export interface ResponseStatus {
  status: 'Failure';
  code: number;
  reason: string;
  message: string;
  details?: {
    name?: string;
    group: string;
    kind: string;
    causes: StatusCause[];
  };
}

export interface AdmissionResponse {
  /** The request's uid, echoed. */
  uid: string;
  allowed: boolean;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON Patch (a JSON array of operations). */
  patch?: string;
  /** Shown to the client (kubectl prints them); the API server shortens long ones. */
  warnings?: string[];
  status?: ResponseStatus;
}

export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_REVIEW_API_VERSION;
  kind: typeof ADMISSION_REVIEW_KIND;
  response: AdmissionResponse;
}
