import { VPA_API_VERSION, type VerticalPodAutoscaler } from './types.js';

/** A VPA as an object reference: what an Event's `involvedObject` names it by. */
export interface VpaReference {
  apiVersion: typeof VPA_API_VERSION;
  kind: 'VerticalPodAutoscaler';
  namespace: string;
  name: string;
  uid: string | undefined;
}

export function vpaReference(vpa: VerticalPodAutoscaler): VpaReference {
  return {
    apiVersion: VPA_API_VERSION,
    kind: 'VerticalPodAutoscaler',
    namespace: vpa.metadata?.namespace ?? '',
    name: vpa.metadata?.name ?? '',
    uid: vpa.metadata?.uid,
  };
}
