import type { V1Deployment } from '@kubernetes/client-node';
import type { DeploymentRead } from '@tandem/custom-metrics';
import { describeError, httpStatusOf, type GetJson } from '@tandem/kube';
import type { LabelSelector } from '@tandem/vpa-api';

/** Reads a Deployment's selector for an Object metric; never rejects. */
export type DeploymentReader = (
  namespace: string,
  name: string,
) => Promise<DeploymentRead>;

/**
 * One GET per request, no cache: the HPA asks once per sync (15 s by default) per Object
 * metric, a load the API server does not notice, and the answer is never staler than it.
 */
export function deploymentReader(get: GetJson): DeploymentReader {
  return async (namespace, name) => {
    try {
      const deployment = (await get(
        `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}`,
      )) as V1Deployment;
      return {
        selector: deployment.spec?.selector as LabelSelector | undefined,
      };
    } catch (error) {
      return httpStatusOf(error) === 404
        ? { notFound: true }
        : { failure: describeError(error) };
    }
  };
}
