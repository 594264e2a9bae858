import type { V1Lease } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaderElector, type LeaseClient } from './leader-elector.js';

const status = (code: number) =>
  Object.assign(new Error(`HTTP ${code}`), { code });

/** An in-memory Lease store with resourceVersion checks, and switches to inject failures. */
class FakeLeases implements LeaseClient {
  lease: V1Lease | undefined;
  private version = 0;
  failAll = false;
  conflictOnWrite = false;
  writes = 0;

  async readNamespacedLease(): Promise<V1Lease> {
    if (this.failAll) throw status(503);
    if (this.lease === undefined) throw status(404);
    return structuredClone(this.lease);
  }
  async createNamespacedLease(param: { body: V1Lease }): Promise<V1Lease> {
    if (this.failAll) throw status(503);
    if (this.lease !== undefined || this.conflictOnWrite) throw status(409);
    return this.store(param.body);
  }
  async replaceNamespacedLease(param: { body: V1Lease }): Promise<V1Lease> {
    if (this.failAll) throw status(503);
    if (
      this.conflictOnWrite ||
      param.body.metadata?.resourceVersion !== String(this.version)
    )
      throw status(409);
    return this.store(param.body);
  }
  private store(body: V1Lease): V1Lease {
    this.version += 1;
    this.writes += 1;
    this.lease = JSON.parse(
      JSON.stringify({
        ...body,
        metadata: { ...body.metadata, resourceVersion: String(this.version) },
      }),
    );
    return structuredClone(this.lease as V1Lease);
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (condition()) return;
    await sleep(10);
  }
  throw new Error(`never happened: ${what}`);
}

const fast = {
  leaseDurationMs: 1_000,
  renewDeadlineMs: 400,
  retryPeriodMs: 100,
};

function elector(
  client: FakeLeases,
  identity: string,
  log: string[],
  errors: unknown[] = [],
) {
  return new LeaderElector({
    name: 'lease',
    namespace: 'ns',
    identity,
    client,
    ...fast,
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
        aLinkDown ? Promise.reject(status(503)) : leases.readNamespacedLease(),
      createNamespacedLease: (p) =>
        aLinkDown
          ? Promise.reject(status(503))
          : leases.createNamespacedLease(p),
      replaceNamespacedLease: (p) =>
        aLinkDown
          ? Promise.reject(status(503))
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
