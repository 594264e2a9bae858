export * from './quantity.js';
export * from './types.js';
export * from './container-policy.js';
export * from './selector.js';
export { parseLabelSelector } from './label-selector-string.js';
export type { VpaTarget } from './vpa-target.js';
export type { FieldError, FieldErrorType } from './field-errors.js';
export * from './validation.js';
export { CappingAction } from './bounds.js';
export * from './capping.js';
export * from './resource-list.js';
export * from './limit-range.js';
export * from './limits.js';
export * from './pod-containers.js';
export * from './pod-resources.js';
export * from './pod-level-resources.js';
export * from './recommendation-narrowing.js';
export * from './original-resources.js';
export * from './startup-boost.js';
export { describeValue } from './describe-value.js';
export {
  changedResources,
  describeResourceChanges,
  kubectlQuantity,
  type ResourceChange,
} from './resource-changes.js';
export {
  recommendationQuantities,
  type RecommendationQuantities,
} from './recommendation-values.js';
export { vpaReference, type VpaReference } from './vpa-reference.js';
