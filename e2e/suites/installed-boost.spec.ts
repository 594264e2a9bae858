import { isDeepStrictEqual } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { PodAnnotation, startupBoostAnnotationKey } from '@tandem/vpa-api';
import { isInstalledPlatform } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { installedLogs } from '../harness/platform-apps.ts';
import {
  cpuCgroupOf,
  createRealDeployment,
  describePod,
  expectedCgroup,
  UPDATER_CYCLE_MS,
} from '../harness/real-pods.ts';
import {
  appRecommendation,
  MANUAL_RECOMMENDER,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { listPods } from '../harness/workloads.ts';

// CPU startup boost (docs/decisions/0031) on kind's real kubelet, the platform installed
// with the CPUStartupBoost gate on in the webhook and the updater (e2e/kind/installed-
// platform): the webhook boosts the pod at creation, and once it has been Ready for the
// boost's duration the updater ends the boost through the resize subresource, which the
// kubelet carries out down to the cgroup, in place (upstream's updater.go RunOnce and
// inplace/resource_updates.go). suites/startup-boost.spec.ts has the webhook's and the
// updater's cases on the local control plane, where kwok plays no kubelet.
const describeInstalled = isInstalledPlatform() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('boost');
const vpas = vpaObjects(kube, () => currentNamespace());

const DECLARED = {
  requests: { cpu: '100m', memory: '32Mi' },
  limits: { cpu: '200m', memory: '64Mi' },
};
/** What the webhook records: the declared values, byte for byte upstream's JSON. */
const RECORDED =
  '{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}';
const BOOST_KEY = startupBoostAnnotationKey('app');
/**
 * Long enough to read the boosted pod, its allocation and its cgroup on a loaded machine
 * before an updater cycle (1 min, at any phase) may end the boost.
 */
const BOOST_SECONDS = 45;

/**
 * The pod's `app` container as the API server holds it and as the kubelet allocated it,
 * through JSON: the client's objects carry absent fields as undefined properties.
 */
function appResources(pod: V1Pod): unknown {
  return JSON.parse(
    JSON.stringify({
      spec: pod.spec?.containers[0]?.resources,
      allocated: pod.status?.containerStatuses?.[0]?.resources,
    }),
  );
}

/**
 * A waitFor probe: the Deployment's pod once its spec and the kubelet's allocation both
 * hold that CPU request and limit (memory as declared), and `also` holds for it.
 */
function podAt(
  cpuRequest: string,
  cpuLimit: string,
  also: (pod: V1Pod) => boolean = () => true,
): () => Promise<V1Pod | undefined> {
  const resources = {
    requests: { cpu: cpuRequest, memory: '32Mi' },
    limits: { cpu: cpuLimit, memory: '64Mi' },
  };
  const expected = { spec: resources, allocated: resources };
  return async () => {
    const [pod] = await listPods(kube, currentNamespace(), 'boosted');
    return pod !== undefined &&
      isDeepStrictEqual(appResources(pod), expected) &&
      also(pod)
      ? pod
      : undefined;
  };
}

describeInstalled(
  'CPU startup boost on a real kubelet (installed platform)',
  () => {
    // Its time: creation (up to 2 min), the boost, two updater cycles, the cgroup and the Event.
    it('boosts a new pod at creation, and ends the boost in place once it is over: same UID, no restart, the cgroup follows', async () => {
      const namespace = currentNamespace();
      await vpas.createVpa('boosted', 'boosted', {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'InPlaceOrRecreate', minReplicas: 1 },
        startupBoost: {
          cpu: { type: 'Factor', factor: 3, durationSeconds: BOOST_SECONDS },
        },
      });
      await vpas.writeRecommendation(
        'boosted',
        appRecommendation(['150m', '100m', '200m'], ['32Mi', '16Mi', '64Mi']),
      );
      const [created] = await createRealDeployment(
        kube,
        namespace,
        'boosted',
        1,
        { resources: DECLARED },
      );
      const name = created?.metadata?.name ?? '';
      const context = async (app: 'admission-webhook' | 'updater') =>
        `${describePod((await listPods(kube, namespace, 'boosted'))[0])}\n${app}:\n${await installedLogs(kube, app, 20)}`;

      // Boosted: the recommended 150m × 3, the limit in the declared ratio (2), as the
      // kubelet allocated it once the pod started.
      const boosted = await waitFor(
        'the pod created boosted to cpu 450m / limit 900m, and the kubelet reporting it',
        podAt('450m', '900m'),
        { timeoutMs: 30_000, intervalMs: 1000 },
        async () => context('admission-webhook'),
      );
      expect({
        uid: boosted.metadata?.uid,
        recorded: boosted.metadata?.annotations?.[BOOST_KEY],
      }).toEqual({ uid: created?.metadata?.uid, recorded: RECORDED });
      const boostedCgroup = await cpuCgroupOf(namespace, name);
      const { version } = boostedCgroup;
      expect(boostedCgroup).toEqual(expectedCgroup(450, 900, version));

      // Unboosted after Ready + the duration, at the updater's next cycle: back to the
      // recommendation, the annotation gone, and the kubelet's allocation following.
      const unboosted = await waitFor(
        'the boost ended in place: cpu 150m / limit 300m allocated, the boost annotation removed',
        podAt(
          '150m',
          '300m',
          ({ metadata }) =>
            metadata?.annotations?.[PodAnnotation.vpaInPlaceUpdated] ===
              'true' && metadata.annotations[BOOST_KEY] === undefined,
        ),
        {
          timeoutMs: BOOST_SECONDS * 1000 + 2 * UPDATER_CYCLE_MS + 30_000,
          intervalMs: 1000,
        },
        async () => context('updater'),
      );
      expect({
        uid: unboosted.metadata?.uid,
        restarts: unboosted.status?.containerStatuses?.[0]?.restartCount,
      }).toEqual({ uid: created?.metadata?.uid, restarts: 0 });
      const cgroup = await waitFor(
        'the container cgroup back at cpu 150m / limit 300m',
        async () => {
          const current = await cpuCgroupOf(namespace, name);
          return current.quota === 30_000 ? current : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
        async () => JSON.stringify(await cpuCgroupOf(namespace, name)),
      );
      expect(cgroup).toEqual(expectedCgroup(150, 300, version));
      // The updater's Event on the pod, as for any in-place resize, naming the boost.
      await waitFor(
        'the InPlaceResizedByVPA Event on the pod, naming the boost that ended',
        async () => {
          const events = await kube.core.listNamespacedEvent({
            namespace,
            fieldSelector: `involvedObject.name=${name},reason=InPlaceResizedByVPA`,
          });
          return events.items.some(
            (event) =>
              event.message ===
              'Pod was resized in place by VPA Updater: the CPU startup boost of app ended.',
          )
            ? true
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
        async () => installedLogs(kube, 'updater', 10),
      );
    }, 420_000);
  },
);
