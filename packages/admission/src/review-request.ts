import { isRecord } from './guards.js';
import { describeValue } from '@tandem/vpa-api';
import {
  ADMISSION_REVIEW_API_VERSION,
  ADMISSION_REVIEW_KIND,
} from './admission-review.js';

/** The parts of an `admission.k8s.io/v1` AdmissionRequest the webhook reads. */
export interface ReviewRequest {
  uid: string;
  operation: string | undefined;
  /** `request.resource`: what the client asked for. */
  resource: { group?: string; version?: string; resource?: string };
  /** `request.kind`: the kind of `object` (after conversion, with matchPolicy Equivalent). */
  kind: { group?: string; version?: string; kind?: string };
  subResource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  object: unknown;
  oldObject: unknown;
}

export type DecodedReview =
  | { request: ReviewRequest; problem?: undefined }
  | { request?: undefined; problem: string };

/**
 * Reads the review envelope. Only what makes an answer impossible is a problem: not a v1
 * AdmissionReview, or no request uid to echo. Every other field is read leniently (wrong
 * types become undefined), so the handlers decide, and a pod is never refused over them.
 */
export function decodeReview(body: unknown): DecodedReview {
  if (!isRecord(body)) {
    return {
      problem: `body must be a JSON object, got ${describeValue(body)}`,
    };
  }
  if (body['apiVersion'] !== ADMISSION_REVIEW_API_VERSION) {
    return {
      problem: `apiVersion must be "${ADMISSION_REVIEW_API_VERSION}", got ${describeValue(body['apiVersion'])}`,
    };
  }
  if (body['kind'] !== ADMISSION_REVIEW_KIND) {
    return {
      problem: `kind must be "${ADMISSION_REVIEW_KIND}", got ${describeValue(body['kind'])}`,
    };
  }
  const request = body['request'];
  if (request === undefined || request === null) {
    return { problem: 'request missing' };
  }
  if (!isRecord(request)) {
    return {
      problem: `request must be an object, got ${describeValue(request)}`,
    };
  }
  const uid = request['uid'];
  if (uid === undefined || uid === null)
    return { problem: 'request.uid missing' };
  if (typeof uid !== 'string' || uid === '') {
    return {
      problem: `request.uid must be a non-empty string, got ${describeValue(uid)}`,
    };
  }
  const resource = recordOrEmpty(request['resource']);
  const kind = recordOrEmpty(request['kind']);
  return {
    request: {
      uid,
      operation: stringOrUndefined(request['operation']),
      resource: {
        group: stringOrUndefined(resource['group']),
        version: stringOrUndefined(resource['version']),
        resource: stringOrUndefined(resource['resource']),
      },
      kind: {
        group: stringOrUndefined(kind['group']),
        version: stringOrUndefined(kind['version']),
        kind: stringOrUndefined(kind['kind']),
      },
      subResource: stringOrUndefined(request['subResource']) || undefined,
      namespace: stringOrUndefined(request['namespace']) || undefined,
      name: stringOrUndefined(request['name']) || undefined,
      object: request['object'],
      oldObject: request['oldObject'],
    },
  };
}

function recordOrEmpty(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
