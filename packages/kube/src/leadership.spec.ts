import { KubeConfig } from '@kubernetes/client-node';
import { FakeLeases, until } from './lease-client.fixtures.js';
import { startLeadership, type LeadershipSettings } from './leadership.js';

const settings: LeadershipSettings = {
  leaderElect: true,
  leaderElectResourceName: 'lease',
  leaderElectResourceNamespace: 'ns',
  leaderElectLeaseDurationMs: 1_000,
  leaderElectRenewDeadlineMs: 400,
  leaderElectRetryPeriodMs: 100,
};

const quietLog = { info: () => undefined, warn: () => undefined };

describe('startLeadership', () => {
  it('always leads, since its start, with leader election off', async () => {
    const leadership = startLeadership(
      { ...settings, leaderElect: false },
      new KubeConfig(),
      quietLog,
      { now: () => 42 },
    );
    expect(leadership.isLeading()).toBe(true);
    expect(leadership.leadingSinceMs()).toBe(42);
    await leadership.stop();
  });

  it('leads only while the last renewal is less than renewDeadline old by its clock, so a resumed process knows at once', async () => {
    // A frozen clock only the test moves: the elector's timers run, its clock does not.
    let clockMs = Date.now();
    const leadership = startLeadership(settings, new KubeConfig(), quietLog, {
      client: new FakeLeases(),
      now: () => clockMs,
    });
    await until(() => leadership.isLeading(), 'it leads');
    const since = leadership.leadingSinceMs();
    expect(since).toBe(clockMs);

    // The pause: the clock jumps; no elector callback has run yet.
    clockMs += settings.leaderElectRenewDeadlineMs;
    expect(leadership.isLeading()).toBe(false);
    expect(leadership.leadingSinceMs()).toBeUndefined();

    // The elector's next retry ends the term and starts a new one, with a new start.
    await until(() => leadership.isLeading(), 'it leads again');
    expect(leadership.leadingSinceMs()).toBe(clockMs);
    await leadership.stop();
  });
});
