import fc from 'fast-check';
import { FlagError, parseFlags } from './flags.js';

describe('updater flags', () => {
  it('defaults to upstream values', () => {
    expect(parseFlags([])).toEqual({
      kubeconfig: undefined,
      kubeApiQps: 5,
      kubeApiBurst: 10,
      listPageSize: 500,
      updaterIntervalMs: 60_000,
      minReplicas: 2,
      evictionTolerance: 0.5,
      evictionRateLimit: -1,
      evictionRateBurst: 1,
      address: { host: '0.0.0.0', port: 8943 },
      useAdmissionControllerStatus: true,
      admissionControllerStatusLeaseName: 'vpa-admission-controller',
      admissionControllerStatusLeaseNamespace: '',
      admissionControllerStatusLeaseTimeoutMs: 60_000,
      inPlaceSkipDisruptionBudget: false,
      podUpdateThreshold: 0.1,
      podLifetimeThresholdMs: 12 * 3_600_000,
      evictAfterOomThresholdMs: 10 * 60_000,
      featureGates: {
        InPlace: false,
        PerVPAConfig: false,
        CPUStartupBoost: false,
        NativeSidecar: false,
      },
      vpaObjectNamespace: undefined,
      ignoredVpaObjectNamespaces: [],
      leaderElect: false,
      leaderElectResourceName: 'vpa-updater',
      leaderElectResourceNamespace: 'kube-system',
      leaderElectLeaseDurationMs: 15_000,
      leaderElectRenewDeadlineMs: 10_000,
      leaderElectRetryPeriodMs: 2_000,
      dryRun: false,
      allowSingleReplica: false,
      inPlaceForAuto: false,
      inPlaceBelowMinReplicas: false,
      inPlaceMemoryLimitHeadroom: 0.15,
      verbosityLogLevel: 'info',
      ignoredFlags: [],
    });
  });

  it("reads upstream's updater flags", () => {
    const flags = parseFlags([
      '--kubeconfig=/etc/kube/config',
      '--updater-interval=30s',
      '--min-replicas=3',
      '--eviction-tolerance=0.25',
      '--eviction-rate-limit=2.5',
      '--eviction-rate-burst=4',
      '--address=127.0.0.1:9000',
      '--admission-controller-status-lease-name=my-webhook',
      '--admission-controller-status-lease-namespace=vpa',
      '--admission-controller-status-lease-timeout=2m',
      '--in-place-skip-disruption-budget',
      '--pod-update-threshold=0.2',
      '--in-recommendation-bounds-eviction-lifetime-threshold=1h30m',
      '--evict-after-oom-threshold=5m',
      '--feature-gates=InPlace=true,PerVPAConfig=true,CPUStartupBoost=false',
      '--ignored-vpa-object-namespaces=kube-system,monitoring',
      '--leader-elect',
      '--leader-elect-resource-name=updater-lease',
      '--kube-api-qps=-1',
      '--kube-api-burst=20',
      '--list-page-size=100',
    ]);
    expect(flags).toMatchObject({
      kubeconfig: '/etc/kube/config',
      kubeApiQps: -1,
      kubeApiBurst: 20,
      listPageSize: 100,
      updaterIntervalMs: 30_000,
      minReplicas: 3,
      evictionTolerance: 0.25,
      evictionRateLimit: 2.5,
      evictionRateBurst: 4,
      address: { host: '127.0.0.1', port: 9000 },
      admissionControllerStatusLeaseName: 'my-webhook',
      admissionControllerStatusLeaseNamespace: 'vpa',
      admissionControllerStatusLeaseTimeoutMs: 120_000,
      inPlaceSkipDisruptionBudget: true,
      podUpdateThreshold: 0.2,
      podLifetimeThresholdMs: 5_400_000,
      evictAfterOomThresholdMs: 300_000,
      featureGates: {
        InPlace: true,
        PerVPAConfig: true,
        CPUStartupBoost: false,
      },
      vpaObjectNamespace: undefined,
      ignoredVpaObjectNamespaces: ['kube-system', 'monitoring'],
      leaderElect: true,
      leaderElectResourceName: 'updater-lease',
    });
    expect(parseFlags(['--vpa-object-namespace=team-a'])).toMatchObject({
      vpaObjectNamespace: 'team-a',
      ignoredVpaObjectNamespaces: [],
    });
  });

  it("reads Tandem's own flags", () => {
    expect(
      parseFlags([
        '--dry-run',
        '--allow-single-replica',
        '--in-place-for-auto',
        '--in-place-below-min-replicas',
        '--in-place-memory-limit-headroom=0.3',
      ]),
    ).toMatchObject({
      inPlaceMemoryLimitHeadroom: 0.3,
      dryRun: true,
      allowSingleReplica: true,
      inPlaceForAuto: true,
      inPlaceBelowMinReplicas: true,
    });
  });

  it('reads arguments the way Go does: -name, and booleans with =true or =false', () => {
    const flags = parseFlags([
      '-v=5',
      '-updater-interval=10s',
      '--dry-run=false',
      '-in-place-for-auto=true',
      '--use-admission-controller-status=false',
      '-min-replicas',
      '1',
    ]);
    expect(flags).toMatchObject({
      verbosityLogLevel: 'debug',
      updaterIntervalMs: 10_000,
      dryRun: false,
      inPlaceForAuto: true,
      useAdmissionControllerStatus: false,
      minReplicas: 1,
    });
    expect(parseFlags(['--dry-run=true']).dryRun).toBe(true);
    expect(
      parseFlags(['-use-admission-controller-status=false'])
        .useAdmissionControllerStatus,
    ).toBe(false);
    // As Go's flag package: the last occurrence wins.
    expect(parseFlags(['--dry-run', '--dry-run=false']).dryRun).toBe(false);
    expect(parseFlags(['--dry-run=false', '-dry-run']).dryRun).toBe(true);
    expect(parseFlags(['--v=4']).verbosityLogLevel).toBe('info');
  });

  it('accepts klog flags and lists them as ignored', () => {
    const flags = parseFlags([
      '--logtostderr',
      '--alsologtostderr=true',
      '--stderrthreshold=info',
      '-vmodule=updater=4',
      '--v=2',
    ]);
    expect(flags.ignoredFlags).toEqual([
      'logtostderr',
      'alsologtostderr',
      'stderrthreshold',
      'vmodule',
    ]);
    expect(flags.verbosityLogLevel).toBe('info');
    // Given, even when turned off.
    expect(parseFlags(['-logtostderr=false']).ignoredFlags).toEqual([
      'logtostderr',
    ]);
  });

  it('takes a negative or zero --eviction-rate-limit as no limit', () => {
    expect(parseFlags(['--eviction-rate-limit=-1']).evictionRateLimit).toBe(-1);
    expect(parseFlags(['--eviction-rate-limit=-0.5']).evictionRateLimit).toBe(
      -0.5,
    );
    expect(parseFlags(['--eviction-rate-limit=0']).evictionRateLimit).toBe(0);
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000, max: 10_000 }).map((n) => n / 8),
        (rate) => {
          expect(
            parseFlags([`--eviction-rate-limit=${rate}`]).evictionRateLimit,
          ).toBe(rate);
        },
      ),
    );
  });

  it.each([
    [['--eviction-tolerance=2'], /--eviction-tolerance .*0 to 1, got '2'/],
    [['--eviction-tolerance=-0.5'], /--eviction-tolerance .*got '-0.5'/],
    [
      ['--in-place-memory-limit-headroom=-0.1'],
      /--in-place-memory-limit-headroom .*got '-0.1'/,
    ],
    [['--no-such-flag'], /no-such-flag/],
    [['--feature-gates=Turbo=true'], /unknown feature gate 'Turbo'/],
    [['--feature-gates=InPlace=yes'], /InPlace must be true or false/],
    [['--updater-interval=soon'], /--updater-interval: 'soon'/],
    [['--min-replicas=0'], /--min-replicas .*got '0'/],
    [['--eviction-rate-burst=0'], /--eviction-rate-burst .*got '0'/],
    [['--eviction-rate-limit=fast'], /--eviction-rate-limit .*got 'fast'/],
    [['--eviction-rate-limit=-fast'], /--eviction-rate-limit .*got '-fast'/],
    [['--pod-update-threshold=-1'], /--pod-update-threshold .*got '-1'/],
    [['--address=8943'], /--address: '8943'/],
    [['--list-page-size=-500'], /--list-page-size .*got '-500'/],
    [['--list-page-size=0.5'], /--list-page-size .*got '0.5'/],
    [['--dry-run=maybe'], /--dry-run must be true or false, got 'maybe'/],
    [['-v=loud'], /--v .*got 'loud'/],
    [
      ['--vpa-object-namespace=a', '--ignored-vpa-object-namespaces=b'],
      /mutually exclusive/,
    ],
    [
      ['--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'],
      /lease-duration must be greater/,
    ],
  ])('refuses %j with a clear error', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});

describe('parseFlags: CPU startup boost', () => {
  it('turns the CPUStartupBoost gate on', () => {
    expect(
      parseFlags(['--feature-gates=CPUStartupBoost=true']).featureGates,
    ).toMatchObject({ CPUStartupBoost: true });
  });
});
