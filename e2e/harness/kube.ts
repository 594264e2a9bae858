import {
  ApiregistrationV1Api,
  AppsV1Api,
  AutoscalingV2Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PolicyV1Api,
} from '@kubernetes/client-node';
import { clusterKubeconfig } from './cluster-env.ts';

export interface KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  autoscaling: AutoscalingV2Api;
  batch: BatchV1Api;
  policy: PolicyV1Api;
  customObjects: CustomObjectsApi;
  apiRegistration: ApiregistrationV1Api;
}

/** API clients for the cluster the global setup provided. */
export function kubeClients(): KubeClients {
  const config = new KubeConfig();
  config.loadFromFile(clusterKubeconfig());
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    autoscaling: config.makeApiClient(AutoscalingV2Api),
    batch: config.makeApiClient(BatchV1Api),
    policy: config.makeApiClient(PolicyV1Api),
    customObjects: config.makeApiClient(CustomObjectsApi),
    apiRegistration: config.makeApiClient(ApiregistrationV1Api),
  };
}

/** The HTTP status of a failed API call, from client-node's ApiException. */
export function httpStatusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}
