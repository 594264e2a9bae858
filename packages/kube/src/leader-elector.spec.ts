import { setTimeout as sleep } from 'node:timers/promises';
import { LeaderElector, type LeaseClient } from './leader-elector.js';
import { FakeLeases, httpError, until } from './lease-client.fixtures.js';

// Short enough to keep the suite quick, long enough that a loaded machine's pauses (CI runs
// these beside the end-to-end suites) never miss a renewal by accident.
const fast = {
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_200,
  retryPeriodMs: 100,
};

function elector(
  client: FakeLeases,
  identity: string,
  log: string[],
  errors: unknown[] = [],
  now?: () => number,
) {
  return new LeaderElector({
    name: 'lease',
    namespace: 'ns',
    identity,
    client,
    ...fast,
    now,
    onStartedLeading: () => log.push(`${identity} started`),
    onStoppedLeading: (reason) => log.push(`${identity} stopped: ${reason}`),
    onError: (error) => errors.push(error),
  });
}

describe('LeaderElector (in-memory Lease)', () => {
  it('creates a missing Lease and leads; stop() releases it', async () => {
    const leases = new FakeLeases();
    const log: string[] = [];
    const a = elector(leases, 'a', log);
    a.start();
    await until(() => a.isLeader, 'a leads');
    expect(leases.lease?.spec?.holderIdentity).toBe('a');
    await until(() => leases.writes >= 3, 'renewals');
    await a.stop();
    expect(log).toEqual(['a started', 'a stopped: stopped']);
    expect(leases.lease?.spec?.holderIdentity).toBe('');
  });

  it('treats 409 conflicts as lost races: no leadership, no error reported', async () => {
    const leases = new FakeLeases();
    leases.conflictOnWrite = true;
    const log: string[] = [];
    const errors: unknown[] = [];
    const a = elector(leases, 'a', log, errors);
    a.start();
    await sleep(350);
    expect(a.isLeader).toBe(false);
    expect(errors).toEqual([]);
    leases.conflictOnWrite = false;
    await until(() => a.isLeader, 'a leads once writes succeed');
    await a.stop();
  });

  it('steps down when renewals fail for renewDeadline, and leads again once the API is back', async () => {
    const leases = new FakeLeases();
    const log: string[] = [];
    const errors: unknown[] = [];
    const a = elector(leases, 'a', log, errors);
    a.start();
    await until(() => a.isLeader, 'a leads');
    leases.failAll = true;
    const failedAt = Date.now();
    await until(() => !a.isLeader, 'a steps down');
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(
      fast.renewDeadlineMs - fast.retryPeriodMs,
    );
    // isLeader turns false by the clock; the elector's next retry then steps down.
    await until(() => log.length === 2, 'the elector steps down');
    expect(log).toEqual(['a started', 'a stopped: renew-deadline-exceeded']);
    expect(errors.length).toBeGreaterThan(0);
    leases.failAll = false;
    await until(() => a.isLeader, 'a leads again');
    await a.stop();
  });

  it('a second candidate waits while the Lease is held and takes it once it expires', async () => {
    const leases = new FakeLeases();
    const log: string[] = [];
    // a reaches the API through a link the test can cut; b always can.
    let aLinkDown = false;
    const aClient: LeaseClient = {
      readNamespacedLease: () =>
        aLinkDown
          ? Promise.reject(httpError(503))
          : leases.readNamespacedLease(),
      createNamespacedLease: (p) =>
        aLinkDown
          ? Promise.reject(httpError(503))
          : leases.createNamespacedLease(p),
      replaceNamespacedLease: (p) =>
        aLinkDown
          ? Promise.reject(httpError(503))
          : leases.replaceNamespacedLease(p),
    };
    const a = new LeaderElector({
      name: 'lease',
      namespace: 'ns',
      identity: 'a',
      client: aClient,
      ...fast,
      onStartedLeading: () => log.push('a started'),
      onStoppedLeading: (reason) => log.push(`a stopped: ${reason}`),
    });
    const b = elector(leases, 'b', log);
    a.start();
    await until(() => a.isLeader, 'a leads');
    b.start();
    await sleep(300);
    expect(b.isLeader).toBe(false);
    expect(b.leader).toBe('a');
    aLinkDown = true;
    const lastRenew = Date.parse(String(leases.lease?.spec?.renewTime));
    await until(() => b.isLeader, 'b leads');
    expect(Date.now()).toBeGreaterThanOrEqual(lastRenew + fast.leaseDurationMs);
    expect(log).toEqual([
      'a started',
      'a stopped: renew-deadline-exceeded',
      'b started',
    ]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('is no longer leader the moment its clock passes renewDeadline since the last renewal (a pause), and ends the term at its next retry', async () => {
    const leases = new FakeLeases();
    const log: string[] = [];
    // A frozen clock only the test moves: every renewal stamps the same instant.
    let clockMs = Date.now();
    const a = elector(leases, 'a', log, [], () => clockMs);
    a.start();
    await until(() => a.isLeader, 'a leads');

    clockMs += fast.renewDeadlineMs - 1;
    expect(a.isLeader).toBe(true);
    clockMs += 1;
    expect(a.isLeader).toBe(false);
    // Its next renewal succeeds (the Lease is still its own), yet the term is over: it steps
    // down, then takes the Lease again as a new term.
    await until(() => log.length === 3, 'a steps down and leads again');
    expect(log).toEqual([
      'a started',
      'a stopped: renew-deadline-exceeded',
      'a started',
    ]);
    expect(a.isLeader).toBe(true);
    await a.stop();
  });

  it('rejects impossible timings at construction', () => {
    expect(
      () =>
        new LeaderElector({
          name: 'l',
          namespace: 'ns',
          identity: 'a',
          client: new FakeLeases(),
          leaseDurationMs: 5_000,
          renewDeadlineMs: 6_000,
        }),
    ).toThrow('must be greater than renewDeadlineMs');
  });
});
