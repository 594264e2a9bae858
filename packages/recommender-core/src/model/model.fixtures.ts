import type {
  ContainerResourcePolicy,
  LabelSelector,
  VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { ClusterModel, type ClusterModelOptions } from './cluster-model.js';

/** Shared builders for the model's tests. */

export const T0 = Date.parse('2024-01-01T00:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const MIB = 1024 * 1024;
export const NS = 'shop';

export function vpaObject(
  name: string,
  options: {
    namespace?: string;
    policies?: ContainerResourcePolicy[];
    recommenders?: string[];
    generation?: number;
  } = {},
): VerticalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      ...(options.generation === undefined
        ? {}
        : { generation: options.generation }),
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      ...(options.policies === undefined
        ? {}
        : { resourcePolicy: { containerPolicies: options.policies } }),
      ...(options.recommenders === undefined
        ? {}
        : { recommenders: options.recommenders.map((n) => ({ name: n })) }),
    },
  };
}

export function selectorFor(labels: Record<string, string>): {
  selector: LabelSelector;
} {
  return { selector: { matchLabels: labels } };
}

export function podSnapshot(
  name: string,
  labels: Record<string, string>,
  containers: string[] = ['app'],
  options: {
    phase?: string;
    memoryRequestBytes?: number;
    init?: string[];
  } = {},
) {
  return {
    namespace: NS,
    name,
    labels,
    phase: options.phase ?? 'Running',
    containers: containers.map((container) => ({
      name: container,
      memoryRequestBytes: options.memoryRequestBytes ?? 0,
    })),
    initContainerNames: options.init ?? [],
  };
}

/** One CPU and one memory sample every minute, as metrics.k8s.io would report them. */
export function feedSteadyUsage(
  model: ClusterModel,
  podName: string,
  container: string,
  usage: { cpuMillicores: number; memoryBytes: number; minutes: number },
  start = T0,
): void {
  for (let i = 0; i < usage.minutes; i += 1) {
    const timeMs = start + i * MINUTE;
    model.addSample(NS, podName, container, {
      timeMs,
      resource: 'cpu',
      usage: usage.cpuMillicores,
    });
    model.addSample(NS, podName, container, {
      timeMs,
      resource: 'memory',
      usage: usage.memoryBytes,
    });
  }
}

/** A model with VPA `shop/web` selecting `app=web` and one pod `web-1` running container `app`. */
export function webModel(
  options: ClusterModelOptions = {},
  vpa: VerticalPodAutoscaler = vpaObject('web'),
): ClusterModel {
  const model = new ClusterModel(options);
  model.upsertVpa(vpa, selectorFor({ app: 'web' }));
  model.upsertPod(podSnapshot('web-1', { app: 'web' }), T0);
  return model;
}

export const STEADY_DAY = {
  cpuMillicores: 500,
  memoryBytes: 500 * MIB,
  minutes: 1440,
};
