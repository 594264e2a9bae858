import {
  vpaReference,
  type VerticalPodAutoscaler,
  type VpaReference,
} from '@tandem/vpa-api';
import type { ReviewedNames } from './decision.js';

/** The reasons of the events the webhook writes, one place for all (its README, "Events"). */
export const AdmissionEventReason = {
  /** On the VPA: a pod it controls was admitted with its resources as declared. */
  PodLeftUnchanged: 'PodLeftUnchanged',
} as const;

export type AdmissionEventReason =
  (typeof AdmissionEventReason)[keyof typeof AdmissionEventReason];

/** An event a review earned: `admit` decides it, the app only writes it. */
export interface AdmissionEvent {
  vpa: VpaReference;
  type: 'Normal' | 'Warning';
  reason: AdmissionEventReason;
  message: string;
}

/**
 * `PodLeftUnchanged` on a VPA that controls the pod. A pod under review often has no name
 * yet: it is named as upstream logs it (`<generateName>%`), with its owner, so a user can
 * tell which workload's pods the VPA passed by.
 */
export function podLeftUnchanged(
  vpa: VerticalPodAutoscaler,
  names: ReviewedNames,
  why: string,
  type: AdmissionEvent['type'],
): AdmissionEvent {
  const owner =
    names.ownerKind === undefined
      ? ''
      : ` of ${names.ownerKind} ${names.ownerName ?? ''}`;
  return {
    vpa: vpaReference(vpa),
    type,
    reason: AdmissionEventReason.PodLeftUnchanged,
    message: `Pod ${names.podName ?? '(unnamed)'}${owner} admitted with its resources as declared: ${why}`,
  };
}
