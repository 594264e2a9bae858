import {
  ADMISSION_REVIEW_API_VERSION,
  ADMISSION_REVIEW_KIND,
  type AdmissionResponse,
} from './admission-review.js';
import type {
  AdmissionContext,
  AdmissionResult,
  ReviewedResource,
} from './admission-types.js';
import { WARNING_PREFIX, type Decision } from './decision.js';
import { encodePatch } from './json-patch.js';
import { admitPod } from './pod-admission.js';
import { decodeReview, type ReviewRequest } from './review-request.js';
import { describeResource, reviewedResource } from './reviewed-resource.js';
import { capMessage, describeError } from './text.js';
import { admitVpa } from './vpa-admission.js';

/**
 * Answers one AdmissionReview (`body` is the parsed HTTP body, of any shape). Never throws
 * and never rejects: pods are always allowed (a problem only means no change, with a
 * warning); VPAs are denied only for field errors; anything else is allowed as it is.
 * A body that is not a v1 AdmissionReview with a request uid gets HTTP 400 and no review.
 */
export async function admit(
  body: unknown,
  context: AdmissionContext,
): Promise<AdmissionResult> {
  let request: ReviewRequest;
  try {
    const decoded = decodeReview(body);
    if (decoded.request === undefined) {
      return unanswerable(`malformed review: ${decoded.problem}`);
    }
    request = decoded.request;
  } catch (error) {
    // Only an exotic body (a Proxy, a throwing getter) gets here; JSON never does.
    return unanswerable(
      `malformed review: unreadable (${describeError(error)})`,
    );
  }
  let resource: ReviewedResource = 'unknown';
  try {
    resource = reviewedResource(request);
    return answer(request.uid, await decide(request, resource, context));
  } catch (error) {
    // A bug, or an injected value that defeats the guards: fail open, as failurePolicy Ignore would.
    const message = `internal error, allowed unchanged: ${describeError(error)}`;
    return answer(request.uid, {
      resource,
      outcome: 'error',
      message: capMessage(message),
      allowed: true,
      warnings: [capMessage(`${WARNING_PREFIX}${message}`)],
    });
  }
}

function decide(
  request: ReviewRequest,
  resource: ReviewedResource,
  context: AdmissionContext,
): Promise<Decision> | Decision {
  switch (resource) {
    case 'Pod':
      return admitPod(request, context);
    case 'VPA':
      return admitVpa(request, context.featureGates);
    default:
      return {
        resource,
        outcome: 'skipped',
        message: `not a pod or VPA (${describeResource(request)}), allowed unchanged`,
        allowed: true,
      };
  }
}

function answer(uid: string, decision: Decision): AdmissionResult {
  const { patch, warnings, status } = decision;
  const response: AdmissionResponse = {
    uid,
    allowed: decision.allowed,
    ...(patch !== undefined &&
      patch.length > 0 && {
        patchType: 'JSONPatch' as const,
        patch: encodePatch(patch),
      }),
    ...(warnings !== undefined &&
      warnings.length > 0 && { warnings: [...warnings] }),
    ...(status !== undefined && { status }),
  };
  return {
    review: {
      apiVersion: ADMISSION_REVIEW_API_VERSION,
      kind: ADMISSION_REVIEW_KIND,
      response,
    },
    httpStatus: 200,
    resource: decision.resource,
    outcome: decision.outcome,
    message: decision.message,
    ...decision.names,
    ...(decision.podLevelResources && {
      podLevelResources: decision.podLevelResources,
    }),
    ...(decision.events && { events: decision.events }),
  };
}

function unanswerable(message: string): AdmissionResult {
  return {
    review: undefined,
    httpStatus: 400,
    resource: 'unknown',
    outcome: 'error',
    message: capMessage(message),
  };
}
