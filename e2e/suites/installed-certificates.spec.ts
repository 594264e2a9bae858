import { setTimeout as sleep } from 'node:timers/promises';
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { admissionStream } from '../harness/admission-stream.ts';
import { isInstalledPlatform } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { installedPods, PLATFORM_NAMESPACE } from '../harness/platform-apps.ts';
import { apiServerGet } from '../harness/raw-get.ts';
import { setAppUsage } from '../harness/usage.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { createDeploymentOfPods, ON_FAKE_NODES } from '../harness/workloads.ts';

// The platform installed on kind from e2e/kind/short-certificates: deploy/ with serving
// certificates of 30 s and CAs of 90 s (overlap 10 s), so both replicas of the webhook and
// of the adapter renew their certificates every ~20 s and rotate their CA every ~70 s
// while this suite creates pods through the webhook and an HPA reads Tandem's metric
// through the aggregator and the adapter (ADR 0017).
const describeInstalled = isInstalledPlatform() ? describe : describe.skip;

const { kube, namespace } = useTestNamespace('installed-certs');
const vpas = vpaObjects(kube, () => namespace());

/** Each app whose Secret holds its install's CA, and the ops port of its pods. */
const SERVING_APPS = [
  {
    app: 'admission-webhook',
    secret: 'tandem-admission-webhook-certs',
    opsPort: 8944,
  },
  {
    app: 'metrics-adapter',
    secret: 'tandem-metrics-adapter-certs',
    opsPort: 8946,
  },
] as const;

/** The CAs of one Secret as last read: the signing one, and whether one is retiring. */
interface CaState {
  signing: string;
  retiring: boolean;
}

async function caState(secret: string): Promise<CaState> {
  const { data } = await kube.core.readNamespacedSecret({
    namespace: PLATFORM_NAMESPACE,
    name: secret,
  });
  return {
    signing: data?.['caCert.pem'] ?? '',
    retiring: data?.['previousCaCert.pem'] !== undefined,
  };
}

/**
 * One CA rotation seen whole in a sequence of reads: the signing CA changed, the old one
 * stayed as the retiring CA, and later left the bundle.
 */
function rotatedOnce(states: readonly CaState[]): boolean {
  const firstChange = states.findIndex(
    (state, i) => i > 0 && state.signing !== states[i - 1]?.signing,
  );
  return (
    firstChange > 0 &&
    states[firstChange]?.retiring === true &&
    states.slice(firstChange).some((state) => !state.retiring)
  );
}

/** Serving certificates each pod of the app issued so far, by pod name. */
async function leafRenewals(
  app: string,
  opsPort: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const pod of await installedPods(kube, app)) {
    const name = pod.metadata?.name ?? '';
    const answer = await apiServerGet(
      kube.config,
      `/api/v1/namespaces/${PLATFORM_NAMESPACE}/pods/${name}:${opsPort}/proxy/metrics`,
    );
    const match =
      /^tandem_serving_certificate_renewals_total\{certificate="leaf"\} (\d+)/m.exec(
        answer.text,
      );
    counts.set(name, Number(match?.[1] ?? Number.NaN));
  }
  return counts;
}

const scalingActive = (hpa: V2HorizontalPodAutoscaler) =>
  hpa.status?.conditions?.find(
    (condition) => condition.type === 'ScalingActive',
  );

describeInstalled(
  'certificates renewing and CAs rotating under the installed platform',
  () => {
    // The loops this test starts, stopped after it however it ended, so none outlives it
    // into the next suite.
    const stops: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      await Promise.allSettled(stops.splice(0).map((stop) => stop()));
    });

    it('admits every pod and answers every HPA metric read through three renewals and a CA rotation', async () => {
      // An HPA on Tandem's metric, read every 5 s (e2e/kind/cluster.yaml): 2 pods at
      // 100m of 200m requested, a target of 90 % of the request, so it holds at 2.
      await createDeploymentOfPods(kube, namespace(), 'scaled', 2, {
        ...ON_FAKE_NODES,
        containers: [
          {
            name: 'app',
            image: 'registry.invalid/tandem-e2e:1',
            resources: { requests: { cpu: '200m', memory: '64Mi' } },
          },
        ],
      });
      await waitFor(
        'both pods of Deployment scaled',
        async () =>
          (
            await kube.core.listNamespacedPod({
              namespace: namespace(),
              labelSelector: 'app=scaled',
            })
          ).items.length === 2 || undefined,
      );
      await setAppUsage(kube, namespace(), 'scaled', {
        cpu: '100m',
        memory: '32Mi',
      });
      await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
        namespace: namespace(),
        body: {
          metadata: { name: 'scaled' },
          spec: {
            scaleTargetRef: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'scaled',
            },
            minReplicas: 2,
            maxReplicas: 4,
            metrics: [
              {
                type: 'Pods',
                pods: {
                  metric: { name: 'cpu_utilization_of_original_request' },
                  target: { type: 'AverageValue', averageValue: '90' },
                },
              },
            ],
          },
        },
      });
      const readHpa = () =>
        kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
          namespace: namespace(),
          name: 'scaled',
        });
      await waitFor(
        'the HPA to read Tandem’s metric (ScalingActive True)',
        async () =>
          scalingActive(await readHpa())?.status === 'True' || undefined,
        { timeoutMs: 120_000, intervalMs: 1000 },
        async () => JSON.stringify((await readHpa()).status?.conditions),
      );

      const stream = await admissionStream(kube, vpas, namespace(), 'web');
      stops.push(() => stream.stop());
      await stream.firstAdmitted();
      const renewalsBefore = await Promise.all(
        SERVING_APPS.map(({ app, opsPort }) => leafRenewals(app, opsPort)),
      );
      let renewalsAfter: Map<string, number>[] = [];
      // The same two pods of each app throughout, each renewing its own certificate
      // three times.
      const renewedThrice = () =>
        renewalsAfter.length === SERVING_APPS.length &&
        renewalsAfter.every((after, i) => {
          const before = renewalsBefore[i] ?? new Map<string, number>();
          return (
            after.size === 2 &&
            [...after].every(
              ([pod, count]) =>
                before.has(pod) && count - (before.get(pod) ?? 0) >= 3,
            )
          );
        });

      // Watch until each Secret showed one CA rotation whole; meanwhile pods keep being
      // created and the HPA's ScalingActive condition is read every second.
      stream.start();
      const inactive: string[] = [];
      const states = SERVING_APPS.map((): CaState[] => []);
      let watching = true;
      const watchingHpa = (async () => {
        while (watching) {
          const condition = scalingActive(await readHpa());
          if (condition?.status !== 'True')
            inactive.push(
              `${condition?.status}: ${condition?.reason}: ${condition?.message}`,
            );
          await sleep(1000);
        }
      })();
      // A failed read ends the watch; awaiting it below rethrows it to the test.
      watchingHpa.catch(() => undefined);
      stops.push(() => {
        watching = false;
        return watchingHpa;
      });
      try {
        await waitFor(
          'one CA rotation, staged, promoted and retired, in both Secrets, and three renewals in every pod',
          async () => {
            for (const [i, { secret }] of SERVING_APPS.entries())
              states[i]?.push(await caState(secret));
            if (!states.every(rotatedOnce)) return undefined;
            renewalsAfter = await Promise.all(
              SERVING_APPS.map(({ app, opsPort }) =>
                leafRenewals(app, opsPort),
              ),
            );
            return renewedThrice() || undefined;
          },
          // A rotation takes 80 s from staging (short-certificates); the first may wait
          // for the signing CA to reach the last third of its 90 s. A renewal comes
          // every 20 s.
          { timeoutMs: 200_000, intervalMs: 1000 },
          async () =>
            states
              .map(
                (seen, i) =>
                  `${SERVING_APPS[i]?.secret}: ${new Set(seen.map((state) => state.signing)).size} signing CAs seen, renewals ${JSON.stringify([...(renewalsAfter[i] ?? [])])} from ${JSON.stringify([...(renewalsBefore[i] ?? [])])}`,
              )
              .join('; '),
        );
      } finally {
        watching = false;
      }
      const [{ created, skipped }] = await Promise.all([
        stream.stop(),
        watchingHpa,
      ]);

      expect({ skipped, inactive }).toEqual({ skipped: [], inactive: [] });
      expect(created).toBeGreaterThan(100);
    }, 420_000);
  },
);
