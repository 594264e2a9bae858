import { setTimeout as sleep } from 'node:timers/promises';
import { PodAnnotation } from '@tandem/vpa-api';
import type { KubeClients } from './kube.ts';
import {
  appRecommendation,
  MANUAL_RECOMMENDER,
  type VpaObjects,
} from './vpa-objects.ts';
import { waitFor } from './wait.ts';

/** What a stream of pod creations saw: how many were created, and which got no patch. */
export interface AdmissionTally {
  created: number;
  /** Pods created without the webhook's annotation: admissions skipped (fail-open). */
  skipped: string[];
}

export interface AdmissionStream {
  /** Resolves once one pod was admitted with the annotation (the webhook serves). */
  firstAdmitted(): Promise<void>;
  /** Creates a pod every `intervalMs` until `stop`, which resolves with the tally. */
  start(intervalMs?: number): void;
  stop(): Promise<AdmissionTally>;
}

/**
 * Pods the webhook must patch, created one after another for as long as a test watches
 * something change under the webhook (its certificates, its replicas): each is owned by
 * Deployment `name` (0 replicas, so its controller adds none) under an `Initial` VPA
 * with a written recommendation, and never scheduled (no node matches), so a pod costs
 * the API server and the webhook only. A pod created without the webhook's
 * original-resources annotation was admitted unchanged: a skipped admission.
 */
export async function admissionStream(
  kube: KubeClients,
  vpas: VpaObjects,
  namespace: string,
  name: string,
): Promise<AdmissionStream> {
  const labels = { app: name };
  const owner = await kube.apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name, labels },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'app', image: 'registry.invalid/x:1' }],
          },
        },
      },
    },
  });
  await vpas.createVpa(name, name, {
    ...MANUAL_RECOMMENDER,
    updatePolicy: { updateMode: 'Initial' },
  });
  await vpas.writeRecommendation(
    name,
    appRecommendation(['250m', '200m', '400m'], ['256Mi', '200Mi', '400Mi']),
  );

  const tally: AdmissionTally = { created: 0, skipped: [] };
  const createPod = async (): Promise<boolean> => {
    tally.created += 1;
    const podName = `${name}-${tally.created}`;
    const pod = await kube.core.createNamespacedPod({
      namespace,
      body: {
        metadata: {
          name: podName,
          labels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name,
              uid: owner.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: {
          nodeSelector: { 'tandem.dev/e2e': 'nowhere' },
          containers: [
            {
              name: 'app',
              image: 'registry.invalid/x:1',
              resources: { requests: { cpu: '1', memory: '1Gi' } },
            },
          ],
        },
      },
    });
    const admitted =
      pod.metadata?.annotations?.[PodAnnotation.originalResources] !==
      undefined;
    if (!admitted) tally.skipped.push(podName);
    return admitted;
  };

  let running: Promise<void> | undefined;
  let stopping = false;
  return {
    async firstAdmitted() {
      await waitFor(
        `a pod owned by ${namespace}/${name} admitted with the annotation`,
        async () => ((await createPod()) ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      // The pods that came before the webhook served are not this stream's to count.
      tally.skipped.length = 0;
    },
    start(intervalMs = 250) {
      running = (async () => {
        while (!stopping) {
          await createPod();
          await sleep(intervalMs);
        }
      })();
      // A failed creation ends the stream; `stop` rethrows it to the test.
      running.catch(() => undefined);
    },
    async stop() {
      stopping = true;
      await running;
      return tally;
    },
  };
}
