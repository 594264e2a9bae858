import fc from 'fast-check';
import type { V1Pod } from '@kubernetes/client-node';
import { sharedParts } from '@tandem/kube';
import { FeatureGate, gatedNativeSidecars, type Pod } from '@tandem/vpa-api';
import { type ObservedPod, oomsFromPodUpdate } from './oom-detection.js';
import { pods } from './pod.fixtures.js';
import { podSnapshotFromPod } from './pod-snapshot.js';
import { recommenderPod } from './recommender-pod.js';

const time = fc.constantFrom(
  '2026-11-02T08:14:09Z',
  '2026-11-02T09:30:00Z',
  'soon',
  undefined,
);
const terminated = fc.record(
  {
    reason: fc.constantFrom('OOMKilled', 'OOMKilled', 'Error'),
    finishedAt: time,
    startedAt: time,
    exitCode: fc.constant(137),
  },
  { requiredKeys: ['exitCode'] },
);
// Weighted towards the states a kill is read from (running, terminated), so that kills
// seen through the last state of a restarted container come up too.
const runState = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  {
    arbitrary: fc.record({ running: fc.record({ startedAt: time }) }),
    weight: 4,
  },
  { arbitrary: fc.constant({ running: null }), weight: 1 },
  { arbitrary: fc.record({ terminated }), weight: 4 },
  { arbitrary: fc.constant({ terminated: null }), weight: 1 },
  {
    arbitrary: fc.constant({ waiting: { reason: 'CrashLoopBackOff' } }),
    weight: 1,
  },
);
/** What a kubelet reports of a container's run, per container status. */
const runs = fc.array(
  fc.record({
    restartCount: fc.option(fc.nat(2), { nil: undefined }),
    state: runState,
    lastState: runState,
    image: fc.constant('registry.example/shop/web:1.4.2'),
    ready: fc.boolean(),
  }),
  { minLength: 3, maxLength: 3 },
);

const RESIZED = { requests: { cpu: '300m', memory: '300Mi' } };

/**
 * `pod` as the API server lists it: its container statuses carry `reported` runs (and the
 * native sidecars' statuses their own), and it holds what the recommender never reads.
 */
function listed(
  pod: Pod,
  reported: readonly object[],
  resourceVersion: string,
): V1Pod {
  const withRun = <T extends object>(status: T, index: number) => ({
    ...status,
    ...reported[index % reported.length],
  });
  const env = [{ name: 'LOG_LEVEL', value: 'info' }];
  return {
    metadata: {
      ...pod.metadata,
      resourceVersion,
      uid: '6f1c2d4e',
      creationTimestamp: new Date('2026-11-02T08:14:03Z'),
      annotations: {
        ...pod.metadata?.annotations,
        'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Pod"}',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d9f',
          uid: 'a1',
          controller: true,
        },
      ],
    },
    spec: {
      containers: pod.spec.containers.map((c) => ({
        ...c,
        env,
        image: 'web:1',
      })),
      initContainers: pod.spec.initContainers?.map((c) => ({
        ...c,
        env,
        image: 'web:1',
      })),
      nodeName: 'node-3',
      volumes: [{ name: 'config', configMap: { name: 'web' } }],
    },
    status: {
      ...pod.status,
      startTime: new Date('2026-11-02T08:14:09Z'),
      podIP: '10.0.0.7',
      containerStatuses: pod.status?.containerStatuses?.map(withRun),
      // A resize reported for a native sidecar: its status's resources, not its spec's.
      initContainerStatuses: pod.spec.initContainers?.map((c, index) =>
        withRun({ name: c.name, resources: RESIZED }, index + 1),
      ),
    },
  } as V1Pod;
}

const listedPod = fc
  .tuple(pods, runs)
  .map(([pod, reported]) => listed(pod, reported, '41'));

describe('recommenderPod (fast-check)', () => {
  it('reads as the listed pod does for podSnapshotFromPod, with the NativeSidecar gate on or off', () => {
    fc.assert(
      fc.property(listedPod, fc.boolean(), (pod, gate) => {
        const read = (p: V1Pod) =>
          podSnapshotFromPod(
            gatedNativeSidecars(p as Pod, {
              [FeatureGate.NativeSidecar]: gate,
            }),
          );
        expect(read(recommenderPod(pod, sharedParts()))).toEqual(read(pod));
      }),
      { numRuns: 500 },
    );
  });

  it('reveals the same OOM kills between two versions of a pod', () => {
    fc.assert(
      fc.property(pods, runs, runs, (pod, before, after) => {
        const share = sharedParts();
        const old = listed(pod, before, '41');
        const updated = listed(pod, after, '42');
        expect(
          oomsFromPodUpdate(
            recommenderPod(old, share) as ObservedPod,
            recommenderPod(updated, share) as ObservedPod,
          ),
        ).toEqual(
          oomsFromPodUpdate(old as ObservedPod, updated as ObservedPod),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
