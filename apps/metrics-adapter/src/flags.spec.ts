import {
  DEFAULT_PROMETHEUS_CPU_QUERY,
  FlagError,
  parseFlags,
} from './flags.js';

describe('parseFlags', () => {
  it('has the generic API server’s defaults and reads metrics.k8s.io', () => {
    expect(parseFlags([])).toMatchObject({
      secure: { host: '0.0.0.0', port: 6443 },
      tlsCertFile: '/etc/tls-certs/serverCert.pem',
      tlsPrivateKeyFile: '/etc/tls-certs/serverKey.pem',
      apiServiceCaFile: undefined,
      minTlsVersion: 'TLSv1.2',
      address: { host: '0.0.0.0', port: 8946 },
      metricsCacheTtlMs: 10_000,
      listPageSize: 500,
      prometheus: undefined,
    });
    expect(parseFlags(['--list-page-size=0']).listPageSize).toBe(0);
  });

  it('takes the shared certificate flags, its own Service by default', () => {
    const { certificates } = parseFlags([
      '--certs-secret=tandem-system/tandem-metrics-adapter-certs',
      '--cert-validity=30s',
      '--ca-validity=90s',
      '--ca-overlap=10s',
    ]);
    expect(certificates.secret).toEqual({
      namespace: 'tandem-system',
      name: 'tandem-metrics-adapter-certs',
    });
    expect(certificates.identity.dnsNames[0]).toBe('tandem-metrics-adapter');
    expect(() => parseFlags(['--ca-overlap=2000h'])).toThrow(FlagError);
  });

  it('switches to Prometheus with --prometheus-url, queries configurable', () => {
    expect(
      parseFlags([
        '--prometheus-url=http://prometheus.monitoring.svc:9090',
        '--prometheus-memory-query=sum by (pod, container) (m{namespace="<<namespace>>"})',
      ]).prometheus,
    ).toEqual({
      url: 'http://prometheus.monitoring.svc:9090',
      cpuQuery: DEFAULT_PROMETHEUS_CPU_QUERY,
      memoryQuery: 'sum by (pod, container) (m{namespace="<<namespace>>"})',
      timeoutMs: 5000,
    });
  });

  it.each([
    [['--prometheus-url=prometheus:9090'], 'is not an http:// or https:// URL'],
    [['--prometheus-cpu-query=up'], 'must contain <<namespace>>'],
    [
      ['--tls-min-version=VersionTLS10'],
      'must be VersionTLS12 or VersionTLS13',
    ],
    [['--metrics-cache-ttl=soon'], 'is not a duration'],
    [
      ['--list-page-size=-1'],
      "--list-page-size must be a whole number of objects a page (0: unpaginated), got '-1'",
    ],
    [['--list-page-size=1.5'], "got '1.5'"],
  ])('refuses %j with a precise message', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});
