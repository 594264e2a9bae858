import type { V1Deployment } from '@kubernetes/client-node';
import {
  VPA_API_VERSION,
  VPA_CHECKPOINT_KIND,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerCheckpoint,
} from '@tandem/vpa-api';
import { workloadVpa } from './synthetic-cluster.js';
import { containerProfiles, dayOfUsage } from './synthetic-usage.js';

const DAY_MS = 24 * 3600 * 1000;

/** What a restarted recommender finds for one workload: its Deployment, VPA and checkpoint. */
export interface RestoredWorkload {
  deployment: V1Deployment;
  vpa: VerticalPodAutoscaler;
  checkpoint: VerticalPodAutoscalerCheckpoint;
}

/**
 * `count` workloads whose pods are all gone (replicas 0: nothing to schedule or measure),
 * each with a checkpoint of container `app` holding a day of usage up to `nowMs`, saved
 * by the same code the recommender saves its own with.
 */
export function restoredWorkloads(
  namespace: string,
  count: number,
  nowMs: number,
  random: () => number,
): RestoredWorkload[] {
  return containerProfiles(count, random).map((profile, i) => {
    const name = `workload-${i}`;
    return {
      deployment: emptyDeployment(namespace, name),
      vpa: workloadVpa(namespace, name),
      checkpoint: {
        apiVersion: VPA_API_VERSION,
        kind: VPA_CHECKPOINT_KIND,
        metadata: { namespace, name: `${name}-app` },
        spec: { vpaObjectName: name, containerName: 'app' },
        status: dayOfUsage(profile, nowMs - DAY_MS, random).saveCheckpoint(
          nowMs,
        ),
      },
    };
  });
}

function emptyDeployment(namespace: string, name: string): V1Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace, name },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'app', image: 'registry.example/app:1.0' }],
        },
      },
    },
  };
}
