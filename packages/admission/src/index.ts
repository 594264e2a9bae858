export { admit } from './admit.js';
export {
  AdmissionEventReason,
  type AdmissionEvent,
} from './admission-events.js';
export type {
  AdmissionContext,
  AdmissionOutcome,
  AdmissionResult,
  ControllerKey,
  ControllerReference,
  ReviewedResource,
  VpaCandidate,
} from './admission-types.js';
export {
  ADMISSION_REVIEW_API_VERSION,
  ADMISSION_REVIEW_KIND,
  type AdmissionResponse,
  type AdmissionReviewResponse,
  type ResponseStatus,
  type StatusCause,
} from './admission-review.js';
export { originalResourcesAnnotation } from './original-resources.js';
// The reader moved to @tandem/vpa-api; re-exported so this package's API stays whole.
export {
  parseOriginalResources,
  type OriginalContainerResources,
  type OriginalResources,
} from '@tandem/vpa-api';
export {
  chooseVpa,
  controllingVpa,
  matchingVpas,
  selectsPod,
  targetsPodController,
  type PodToMatch,
} from './vpa-choice.js';
export { controllingOwner, controllingReference } from './pod-controller.js';
export { withControlledRecommendation } from './controlled-recommendation.js';
export { encodePatch, jsonPointer, type AddOperation } from './json-patch.js';
export {
  webhookConfiguration,
  WEBHOOK_CONFIGURATION_NAME,
  WEBHOOK_NAME,
  type WebhookConfigurationOwner,
  type WebhookRegistrationOptions,
} from './webhook-configuration.js';
export { parseWebhookLabels } from './webhook-labels.js';
