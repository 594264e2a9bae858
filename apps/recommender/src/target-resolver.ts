import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1CronJob,
  type V1LabelSelector,
  type V1OwnerReference,
  type V1ReplicationController,
} from '@kubernetes/client-node';
import { describeError, httpStatusOf } from '@tandem/kube';
import type { LabelSelector, VerticalPodAutoscaler } from '@tandem/vpa-api';
import type { VpaTarget } from './model/index.js';

interface TargetObject {
  metadata?: { ownerReferences?: V1OwnerReference[] };
  selector: LabelSelector | undefined;
}

type Reader = (namespace: string, name: string) => Promise<TargetObject>;

/**
 * Finds the pod selector of a VPA's target controller, as upstream's controller fetcher
 * does for the well-known kinds. A target that cannot be read, has no selector, or is
 * itself controlled by another object is unsupported, with upstream's message; the VPA then
 * matches no pods and gets ConfigUnsupported.
 */
export function targetResolver(
  kubeConfig: KubeConfig,
): (vpa: VerticalPodAutoscaler) => Promise<VpaTarget> {
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  type NamedObject = { namespace: string; name: string };
  type WithSpecSelector = {
    metadata?: TargetObject['metadata'];
    spec?: { selector?: V1LabelSelector };
  };
  const bySpecSelector =
    (read: (object: NamedObject) => Promise<WithSpecSelector>): Reader =>
    async (namespace, name) => {
      const object = await read({ namespace, name });
      // The API's operator is a plain string; the model validates it when it compiles the selector.
      return {
        metadata: object.metadata,
        selector: object.spec?.selector as LabelSelector | undefined,
      };
    };
  const byLabels =
    <T extends { metadata?: TargetObject['metadata'] }>(
      read: (object: NamedObject) => Promise<T>,
      labels: (object: T) => Record<string, string> | undefined,
    ): Reader =>
    async (namespace, name) => {
      const object = await read({ namespace, name });
      const matchLabels = labels(object);
      return {
        metadata: object.metadata,
        selector: matchLabels === undefined ? undefined : { matchLabels },
      };
    };
  const readers: Record<string, Reader> = {
    Deployment: bySpecSelector((object) =>
      apps.readNamespacedDeployment(object),
    ),
    ReplicaSet: bySpecSelector((object) =>
      apps.readNamespacedReplicaSet(object),
    ),
    StatefulSet: bySpecSelector((object) =>
      apps.readNamespacedStatefulSet(object),
    ),
    DaemonSet: bySpecSelector((object) => apps.readNamespacedDaemonSet(object)),
    Job: bySpecSelector((object) => batch.readNamespacedJob(object)),
    // Neither has a LabelSelector: a CronJob's pods carry its job template's labels, and a
    // ReplicationController selects by a plain label map.
    CronJob: byLabels(
      (object) => batch.readNamespacedCronJob(object),
      (cronJob: V1CronJob) =>
        cronJob.spec?.jobTemplate.spec?.template.metadata?.labels,
    ),
    ReplicationController: byLabels(
      (object) => core.readNamespacedReplicationController(object),
      (controller: V1ReplicationController) => controller.spec?.selector,
    ),
  };

  return async (vpa) => {
    const namespace = vpa.metadata?.namespace ?? '';
    const { kind, name } = vpa.spec?.targetRef ?? { kind: '', name: '' };
    const read = readers[kind];
    if (read === undefined) {
      return {
        unsupported: `Cannot read targetRef. Reason: kind ${kind} is not a well-known controller Tandem resolves yet`,
      };
    }
    let target: TargetObject;
    try {
      target = await read(namespace, name);
    } catch (error) {
      const reason =
        httpStatusOf(error) === 404
          ? `${kind} ${namespace}/${name} does not exist`
          : describeError(error);
      return { unsupported: `Cannot read targetRef. Reason: ${reason}` };
    }
    const owner = target.metadata?.ownerReferences?.find(
      (reference) => reference.controller === true,
    );
    if (owner !== undefined) {
      return {
        unsupported: `The target ${kind} ${namespace}/${name} has a parent controller (${owner.kind} ${owner.name}) but it should point to a topmost well-known or scalable controller`,
      };
    }
    if (target.selector === undefined)
      return {
        unsupported: `Cannot read targetRef. Reason: ${kind} ${namespace}/${name} has no selector`,
      };
    return { selector: target.selector };
  };
}
