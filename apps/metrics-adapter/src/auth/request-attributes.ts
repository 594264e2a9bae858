/** What a request asks to do, in the terms of a SubjectAccessReview. */
export type RequestAttributes =
  | {
      resource: {
        namespace?: string;
        verb: string;
        group: string;
        version: string;
        resource: string;
        subresource?: string;
        name?: string;
      };
    }
  | { nonResource: { path: string; verb: string } };

/**
 * Probe paths: kubelets call them without credentials, and Go's delegating authorizer
 * allows them for everyone. Sub-paths (`/healthz/ping`, `/readyz/log`) count too, since
 * they are the same probes' individual checks.
 */
const PROBE_PATHS = ['/healthz', '/readyz', '/livez'];

export function isProbePath(path: string): boolean {
  return PROBE_PATHS.some(
    (probe) => path === probe || path.startsWith(`${probe}/`),
  );
}
