import { FlagError, parseDuration, parseFlags } from './flags.js';

describe('recommender flags', () => {
  it('defaults to upstream values', () => {
    expect(parseFlags([])).toEqual({
      kubeconfig: undefined,
      recommenderName: 'default',
      recommenderIntervalMs: 60_000,
      checkpointsGcIntervalMs: 600_000,
      checkpointsTimeoutMs: 60_000,
      updateWorkerCount: 10,
      address: { host: '0.0.0.0', port: 8942 },
      memorySaver: false,
      vpaObjectNamespace: undefined,
      ignoredVpaObjectNamespaces: [],
      leaderElect: false,
      leaderElectResourceName: 'vpa-recommender-lease',
      leaderElectResourceNamespace: 'kube-system',
      leaderElectLeaseDurationMs: 15_000,
      leaderElectRenewDeadlineMs: 10_000,
      leaderElectRetryPeriodMs: 2_000,
      globalMaxAllowed: {},
    });
  });

  it('reads the flags a test or a Deployment sets', () => {
    const flags = parseFlags([
      '--kubeconfig=/tmp/k',
      '--recommender-interval=5s',
      '--address=127.0.0.1:0',
      '--ignored-vpa-object-namespaces=kube-system,infra',
      '--leader-elect=true',
      '--leader-elect-lease-duration=3s',
      '--leader-elect-renew-deadline=2s',
      '--leader-elect-retry-period=500ms',
      '--checkpoints-timeout=10s',
      '--update-worker-count=4',
      '--memory-saver',
      '--container-recommendation-max-allowed-cpu=4',
      '--container-recommendation-max-allowed-memory=8Gi',
    ]);
    expect(flags).toMatchObject({
      kubeconfig: '/tmp/k',
      recommenderIntervalMs: 5000,
      address: { host: '127.0.0.1', port: 0 },
      ignoredVpaObjectNamespaces: ['kube-system', 'infra'],
      leaderElect: true,
      leaderElectLeaseDurationMs: 3000,
      leaderElectRenewDeadlineMs: 2000,
      leaderElectRetryPeriodMs: 500,
      checkpointsTimeoutMs: 10_000,
      updateWorkerCount: 4,
      memorySaver: true,
      globalMaxAllowed: { cpu: '4', memory: '8Gi' },
    });
  });

  it.each([
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1h', 3_600_000],
    ['1.5s', 1500],
  ])('parses the duration %s', (text, ms) =>
    expect(parseDuration(text, 'x')).toBe(ms),
  );

  it.each([
    [
      ['--recommender-interval=soon'],
      "--recommender-interval: 'soon' is not a duration such as 30s, 1m or 1h30m",
    ],
    [
      ['--recommender-interval=0s'],
      "--recommender-interval must be positive, got '0s'",
    ],
    [
      ['--update-worker-count=0'],
      "--update-worker-count must be a whole number from 1, got '0'",
    ],
    [['--address=8942'], "--address: '8942' is not host:port (e.g. :8942)"],
    [
      ['--leader-elect=maybe'],
      "--leader-elect must be true or false, got 'maybe'",
    ],
    [
      ['--leader-elect-lease-duration=10s'],
      '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline',
    ],
    [
      ['--leader-elect-retry-period=10s', '--leader-elect-lease-duration=20s'],
      '--leader-elect-renew-deadline must be greater than --leader-elect-retry-period',
    ],
    [
      ['--vpa-object-namespace=a', '--ignored-vpa-object-namespaces=b'],
      '--vpa-object-namespace and --ignored-vpa-object-namespaces are mutually exclusive',
    ],
  ])('rejects %j precisely', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });

  it('names the flag of an unparseable maximum', () => {
    expect(() =>
      parseFlags(['--container-recommendation-max-allowed-memory=lots']),
    ).toThrow(
      /^--container-recommendation-max-allowed-memory: invalid quantity "lots"/,
    );
  });

  it('rejects unknown flags', () => {
    expect(() => parseFlags(['--recomender-interval=1m'])).toThrow(FlagError);
  });
});
