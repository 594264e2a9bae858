import { CoordinationV1Api } from '@kubernetes/client-node';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  type LogEntry,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { waitFor } from '../harness/wait.ts';
import { type Checkpoint, vpaObjects } from '../harness/vpa-objects.ts';
import { runDeployment } from '../harness/workloads.ts';

// Two recommender processes campaigning for one Lease: only the leader runs cycles, and a
// follower takes over when the leader stops (released Lease) or dies (expired Lease).
const describeLocal = isLocalCluster() ? describe : describe.skip;

const LEASE = 'tandem-recommender-e2e';
const LEASE_DURATION_MS = 4_000;
/** Takeovers take about a lease duration; the rest is slack for a busy two-core machine. */
const TAKEOVER_TIMEOUT_MS = 45_000;

const { kube, namespace: currentNamespace } = useTestNamespace('leader');
const coordination = kube.config.makeApiClient(CoordinationV1Api);
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);

interface Candidate {
  identity: string;
  process: RecommenderProcess;
}

function startCandidate(identity: string): Promise<Candidate> {
  return startRecommender({
    kubeconfig: clusterKubeconfig(),
    intervalSeconds: 2,
    extraArgs: [
      '--leader-elect=true',
      `--leader-elect-resource-namespace=${namespace}`,
      `--leader-elect-resource-name=${LEASE}`,
      `--leader-elect-lease-duration=${LEASE_DURATION_MS / 1000}s`,
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
    ],
    env: { POD_NAME: identity },
  }).then((process) => ({ identity, process }));
}

const entriesNamed = (candidate: Candidate, msg: string): LogEntry[] =>
  candidate.process.entries().filter((entry) => entry.msg === msg);
const isLeading = (candidate: Candidate) =>
  entriesNamed(candidate, 'started leading').length > 0;

async function holder(): Promise<string | undefined> {
  const lease = await coordination.readNamespacedLease({
    name: LEASE,
    namespace,
  });
  return lease.spec?.holderIdentity || undefined;
}

/** The checkpoint of the `led` VPA's only container. */
const LED_CHECKPOINT = 'led-app';

/** How much history a checkpoint holds: what a takeover must never shrink. */
function history(checkpoint: Checkpoint | undefined) {
  const status = checkpoint?.status;
  return {
    samples: status?.totalSamplesCount ?? 0,
    firstSampleStart: status?.firstSampleStart,
    cpuWeight: status?.cpuHistogram?.totalWeight ?? 0,
    memoryWeight: status?.memoryHistogram?.totalWeight ?? 0,
  };
}

const describeAll = (candidates: Candidate[]) => async () =>
  candidates
    .map(
      ({ identity, process }) =>
        `${identity}: ${process.cycleCount()} cycles, output tail:\n${process.tail(10)}`,
    )
    .join('\n');

/** Waits until `candidate` leads: its log says so, the Lease names it, and it cycles. */
async function waitForLeadership(
  candidate: Candidate,
  others: Candidate[],
): Promise<LogEntry> {
  const observe = describeAll([candidate, ...others]);
  const started = await waitFor(
    `${candidate.identity} to log "started leading"`,
    async () => entriesNamed(candidate, 'started leading')[0],
    { timeoutMs: TAKEOVER_TIMEOUT_MS },
    observe,
  );
  await waitFor(
    `the Lease to name ${candidate.identity} as holder`,
    async () => ((await holder()) === candidate.identity ? true : undefined),
    { timeoutMs: TAKEOVER_TIMEOUT_MS },
    async () => `holder ${await holder()}; ${await observe()}`,
  );
  await waitFor(
    `${candidate.identity} to run a cycle`,
    async () => (candidate.process.cycleCount() > 0 ? true : undefined),
    { timeoutMs: TAKEOVER_TIMEOUT_MS },
    observe,
  );
  return started;
}

describeLocal('two leader-electing recommender processes', () => {
  let leader: Candidate;
  let follower: Candidate;

  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
  });
  afterAll(async () => {
    await stopAllApps();
  });

  it('lets exactly one of them lead and run cycles, and it recommends', async () => {
    const candidates = await Promise.all([
      startCandidate('recommender-a'),
      startCandidate('recommender-b'),
    ]);
    const first = await waitFor(
      'one of the two to log "started leading"',
      async () => candidates.find(isLeading),
      { timeoutMs: TAKEOVER_TIMEOUT_MS },
      describeAll(candidates),
    );
    leader = first;
    follower = candidates.find((candidate) => candidate !== first) ?? first;
    await waitForLeadership(leader, [follower]);

    await runDeployment(kube, namespace, {
      name: 'led',
      replicas: 1,
      cpuRequest: '200m',
      memoryRequest: '256Mi',
      initialUsage: { cpu: '300m', memory: '300Mi' },
    });
    await vpas.createVpa('led', 'led');
    await vpas.waitForRecommendation(
      'led',
      'a recommendation from the leader',
      {
        context: () => `leader output tail:\n${leader.process.tail(10)}`,
      },
    );

    // By now the follower has seen many retry periods and leader cycles go by.
    expect(isLeading(follower)).toBe(false);
    expect(follower.process.cycleCount()).toBe(0);
    expect(await holder()).toBe(leader.identity);
  });

  it('hands over when the leader stops on SIGTERM, which releases the Lease, and the successor keeps all of its history', async () => {
    // The leader's checkpoint grows over several cycles; the follower, started with it, saw
    // none of that history at its own start.
    const grown = await waitFor(
      "the leader's checkpoint to hold three cycles of samples",
      async () => {
        const checkpoint = await vpas.readCheckpoint(LED_CHECKPOINT);
        return (checkpoint?.status?.totalSamplesCount ?? 0) >= 3
          ? checkpoint
          : undefined;
      },
      { timeoutMs: TAKEOVER_TIMEOUT_MS },
      describeAll([leader, follower]),
    );
    expect(await leader.process.stop()).toBe(0);
    expect(entriesNamed(leader, 'stopped leading')).toEqual([
      expect.objectContaining({ reason: 'stopped' }),
    ]);
    const lastOfLeader = await vpas.readCheckpoint(LED_CHECKPOINT);
    expect(history(lastOfLeader).samples).toBeGreaterThanOrEqual(
      history(grown).samples,
    );

    await waitForLeadership(follower, [leader]);
    // History is loaded when the lead is taken, not when the process started.
    expect(entriesNamed(follower, 'term started: history loaded')).toEqual([
      expect.objectContaining({ vpas: 1 }),
    ]);
    const firstOfSuccessor = await waitFor(
      'the successor to write the checkpoint',
      async () => {
        const checkpoint = await vpas.readCheckpoint(LED_CHECKPOINT);
        return checkpoint?.metadata.resourceVersion !==
          lastOfLeader?.metadata.resourceVersion
          ? checkpoint
          : undefined;
      },
      { timeoutMs: TAKEOVER_TIMEOUT_MS },
      describeAll([follower]),
    );
    const before = history(lastOfLeader);
    const after = history(firstOfSuccessor);
    expect(after.firstSampleStart).toBe(before.firstSampleStart);
    expect(after.samples).toBeGreaterThanOrEqual(before.samples);
    expect(after.cpuWeight).toBeGreaterThanOrEqual(before.cpuWeight);
    expect(after.memoryWeight).toBeGreaterThanOrEqual(before.memoryWeight);
    [leader, follower] = [follower, leader];
  });

  it('takes over from a killed leader once its Lease has expired', async () => {
    const successor = await startCandidate('recommender-c');
    // The successor campaigns for a while without winning while the leader renews.
    const cycles = leader.process.cycleCount() + 2;
    await waitFor(
      'the leader to run two more cycles while recommender-c runs',
      async () => (leader.process.cycleCount() >= cycles ? true : undefined),
      { timeoutMs: TAKEOVER_TIMEOUT_MS },
      describeAll([leader, successor]),
    );
    expect(isLeading(successor)).toBe(false);

    const pid = leader.process.pid;
    if (pid === undefined) throw new Error('the leader has no pid');
    const killedMs = Date.now();
    process.kill(pid, 'SIGKILL');
    const started = await waitForLeadership(successor, [leader]);

    // The killed leader could not release the Lease: the successor had to wait for it to
    // expire, a lease duration after the last renewal (at most a retry period before the
    // kill), not the moments a released Lease takes.
    expect(entriesNamed(leader, 'stopped leading')).toEqual([]);
    expect(Number(started['time']) - killedMs).toBeGreaterThanOrEqual(
      LEASE_DURATION_MS - 1_000,
    );
    expect(successor.process.cycleCount()).toBeGreaterThan(0);
  });
});
