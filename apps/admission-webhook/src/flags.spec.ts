import { FlagError, parseFlags } from './flags.js';

describe('parseFlags', () => {
  it('has upstream’s defaults', () => {
    expect(parseFlags([])).toMatchObject({
      clientCaFile: '/etc/tls-certs/caCert.pem',
      tlsCertFile: '/etc/tls-certs/serverCert.pem',
      tlsPrivateKey: '/etc/tls-certs/serverKey.pem',
      minTlsVersion: 'TLSv1.2',
      tlsCiphers: undefined,
      port: 8000,
      address: { host: '0.0.0.0', port: 8944 },
      registerWebhook: true,
      registerByUrl: false,
      webhookService: 'vpa-webhook',
      webhookTimeoutSeconds: 30,
      webhookFailurePolicyFail: false,
      cacheSyncDeadlineMs: 250,
      listPageSize: 500,
      webhookLabels: {},
      webhookOwnerClusterRole: '',
      statusLeaseName: 'vpa-admission-controller',
      statusLeaseNamespace: '',
      statusLeaseUpdateIntervalMs: 10_000,
      featureGates: {
        InPlace: false,
        PerVPAConfig: false,
        CPUStartupBoost: false,
        NativeSidecar: false,
      },
      maxAllowedCpuBoost: undefined,
      vpaObjectNamespace: undefined,
      ignoredVpaObjectNamespaces: [],
      verbosityLogLevel: 'info',
      ignoredFlags: [],
    });
  });

  it('starts with the arguments of upstream’s manifests and chart, klog flags included', () => {
    const flags = parseFlags([
      '--client-ca-file=/etc/tls-certs/caCert.pem',
      '--tls-cert-file=/etc/tls-certs/serverCert.pem',
      '--tls-private-key=/etc/tls-certs/serverKey.pem',
      '--reload-cert=true',
      '--min-tls-version=tls1_3',
      '--webhook-timeout-seconds=10',
      '--webhook-labels=team:autoscaling,tier:platform',
      '--feature-gates=InPlace=true,CPUStartupBoost=false',
      '-v=5',
      '--logtostderr=true',
      '--stderrthreshold=info',
      '--kube-api-qps=50',
      '--kube-api-burst=100',
    ]);
    expect(flags).toMatchObject({
      minTlsVersion: 'TLSv1.3',
      webhookTimeoutSeconds: 10,
      webhookLabels: { team: 'autoscaling', tier: 'platform' },
      featureGates: { InPlace: true, CPUStartupBoost: false },
      verbosityLogLevel: 'debug',
      ignoredFlags: ['logtostderr', 'stderrthreshold'],
      kubeApiQps: 50,
      kubeApiBurst: 100,
    });
  });

  it('takes --webhook-owner-cluster-role, Tandem’s, as the name of the registration’s owner', () => {
    expect(
      parseFlags([
        '--webhook-owner-cluster-role=tandem-admission-webhook-registration',
      ]),
    ).toMatchObject({
      webhookOwnerClusterRole: 'tandem-admission-webhook-registration',
    });
  });

  it('takes --cache-sync-deadline as a Go duration', () => {
    expect(parseFlags(['--cache-sync-deadline=1s'])).toMatchObject({
      cacheSyncDeadlineMs: 1000,
    });
    expect(parseFlags(['--cache-sync-deadline', '1.5s'])).toMatchObject({
      cacheSyncDeadlineMs: 1500,
    });
  });

  it.each([
    [
      ['--cache-sync-deadline=0s'],
      "--cache-sync-deadline must be positive, got '0s'",
    ],
    [
      ['--cache-sync-deadline=250'],
      "--cache-sync-deadline: '250' is not a duration",
    ],
    [
      ['--min-tls-version=tls1_1'],
      "--min-tls-version must be tls1_2 or tls1_3, got 'tls1_1'",
    ],
    [['--max-allowed-cpu-boost=lots'], '--max-allowed-cpu-boost:'],
    [
      ['--max-allowed-cpu-boost=-1'],
      "--max-allowed-cpu-boost must not be negative, got '-1'",
    ],
    [['--register-by-url'], '--register-by-url needs --webhook-address'],
    [['--webhook-labels=broken'], '--webhook-labels:'],
    [
      ['--vpa-object-namespace=a', '--ignored-vpa-object-namespaces=b'],
      'mutually exclusive',
    ],
    [['--port=http'], "--port: ':http' is not host:port"],
    [
      ['--list-page-size=-1'],
      "--list-page-size must be a whole number of objects a page (0: unpaginated), got '-1'",
    ],
    [['--list-page-size=5e2'], '--list-page-size must be a whole number'],
    [['--no-such-flag'], "Unknown option '--no-such-flag'"],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});

describe('parseFlags: CPU startup boost', () => {
  it('turns the CPUStartupBoost gate on and reads --max-allowed-cpu-boost', () => {
    const flags = parseFlags([
      '--feature-gates=CPUStartupBoost=true',
      '--max-allowed-cpu-boost=2500m',
    ]);
    expect(flags.featureGates).toMatchObject({ CPUStartupBoost: true });
    expect(flags.maxAllowedCpuBoost?.toString()).toBe('2500m');
  });
});
