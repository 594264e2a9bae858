import type { LabelSelector } from './selector.js';

/**
 * What resolving a VPA's `targetRef` gave (that needs the API server, so an app's I/O loop
 * does it, e.g. with `@tandem/kube`'s `vpaTargetResolution`): the pod selector of the target
 * controller, or why the target is unsupported, in upstream's words (`Cannot read
 * targetRef[. Reason: …]`, `The target … has a parent controller but it should point to a
 * topmost well-known or scalable controller`).
 */
export type VpaTarget =
  | { readonly selector: LabelSelector }
  | { readonly unsupported: string };
