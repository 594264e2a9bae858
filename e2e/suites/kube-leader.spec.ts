import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { LeaderElector, type LeaderElectorOptions } from '@tandem/kube/clients';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('kube-leader');
const coordination = kube.config.makeApiClient(CoordinationV1Api);
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

const RETRY_PERIOD_MS = 2_000;

interface Candidate {
  elector: LeaderElector;
  log: string[];
}

const electors: LeaderElector[] = [];
afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

/** Leaders at this moment, across every candidate started by the test. */
let leadingNow = 0;
let maxLeadingAtOnce = 0;

function candidate(
  lease: string,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const log: string[] = [];
  const elector = new LeaderElector({
    kubeConfig: kube.config,
    name: lease,
    namespace,
    identity,
    // The upstream defaults: 15 s lease, 10 s renew deadline, 2 s retry.
    onStartedLeading: () => {
      log.push('started');
      leadingNow += 1;
      maxLeadingAtOnce = Math.max(maxLeadingAtOnce, leadingNow);
    },
    onStoppedLeading: (reason) => {
      log.push(`stopped: ${reason}`);
      leadingNow -= 1;
    },
    ...extra,
  });
  electors.push(elector);
  return { elector, log };
}

async function holderOf(lease: string): Promise<string | undefined> {
  const spec = (
    await coordination.readNamespacedLease({ name: lease, namespace })
  ).spec;
  return spec?.holderIdentity || undefined;
}

describe('LeaderElector on a real Lease', () => {
  beforeEach(() => {
    leadingNow = 0;
    maxLeadingAtOnce = 0;
  });

  it('lets exactly one of two candidates lead; stop() hands over within about a retry period', async () => {
    const lease = 'two-candidates';
    const a = candidate(lease, 'candidate-a');
    const b = candidate(lease, 'candidate-b');
    a.elector.start();
    b.elector.start();
    const leader = await waitFor(
      'one candidate to lead',
      async () => (a.elector.isLeader ? a : b.elector.isLeader ? b : undefined),
      { timeoutMs: 20_000 },
    );
    const follower = leader === a ? b : a;
    const leaderId = leader === a ? 'candidate-a' : 'candidate-b';
    const followerId = leader === a ? 'candidate-b' : 'candidate-a';
    expect(await holderOf(lease)).toBe(leaderId);
    expect(follower.elector.isLeader).toBe(false);
    // Through several renewals, the follower keeps seeing a valid lease held by the leader.
    await waitFor(
      'the follower to observe the leader across three renewals',
      async () => {
        const renew = (
          await coordination.readNamespacedLease({ name: lease, namespace })
        ).spec?.renewTime;
        const age = Date.now() - new Date(renew as unknown as string).getTime();
        return follower.elector.leader === leaderId && age < RETRY_PERIOD_MS * 3
          ? true
          : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(maxLeadingAtOnce).toBe(1);

    const stoppedAt = Date.now();
    await leader.elector.stop();
    expect(leader.log).toEqual(['started', 'stopped: stopped']);
    await waitFor(
      'the follower to take over after the leader released the Lease',
      async () => (follower.elector.isLeader ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const handover = Date.now() - stoppedAt;
    // A candidate retries every retryPeriod × [1, 1.2); allow one request's latency on top.
    expect(handover).toBeLessThan(RETRY_PERIOD_MS * 1.2 + 1_500);
    expect(await holderOf(lease)).toBe(followerId);
    expect(maxLeadingAtOnce).toBe(1);
  });

  it('steps down when another holder takes the Lease with a fresh renewTime', async () => {
    const lease = 'stolen';
    const victim = candidate(lease, 'victim');
    victim.elector.start();
    await waitFor(
      'the candidate to lead',
      async () => (victim.elector.isLeader ? true : undefined),
      { timeoutMs: 20_000 },
    );

    const current = await coordination.readNamespacedLease({
      name: lease,
      namespace,
    });
    const now = new V1MicroTime();
    await coordination.replaceNamespacedLease({
      name: lease,
      namespace,
      body: {
        ...current,
        spec: {
          ...current.spec,
          holderIdentity: 'thief',
          acquireTime: now,
          renewTime: now,
          leaseDurationSeconds: 15,
        },
      },
    });
    const stolenAt = Date.now();
    await waitFor(
      'the former leader to step down',
      async () => (victim.elector.isLeader ? undefined : true),
      { timeoutMs: 10_000, intervalMs: 50 },
      async () => victim.log.join(', '),
    );
    expect(Date.now() - stolenAt).toBeLessThan(RETRY_PERIOD_MS + 1_500);
    expect(victim.log).toEqual(['started', 'stopped: lease-taken']);
    expect(await holderOf(lease)).toBe('thief');
    expect(victim.elector.leader).toBe('thief');
  });
});
