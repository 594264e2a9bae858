import {
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
} from '@tandem/estimators';
import { FlagError, parseDuration, parseFlags } from './flags.js';

describe('recommender flags', () => {
  it('defaults to upstream values', () => {
    expect(parseFlags([])).toEqual({
      kubeconfig: undefined,
      recommenderName: 'default',
      recommenderIntervalMs: 60_000,
      checkpointsGcIntervalMs: 600_000,
      checkpointsTimeoutMs: 60_000,
      defaultStrategy: 'upstream',
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
      kubeApiQps: 50,
      kubeApiBurst: 100,
      listPageSize: 500,
      integerCpuPostProcessor: false,
      capAtLargestNode: false,
      capOomBumpUpAtMaxAllowed: false,
      qualityMetrics: false,
      estimators: {
        recommender: DEFAULT_RECOMMENDER_CONFIG,
        aggregation: DEFAULT_AGGREGATION_CONFIG,
        format: {
          roundCpuMillicores: 1,
          roundMemoryBytes: 1,
          humanizeMemory: false,
        },
      },
      verbosityLogLevel: 'info',
      featureGates: {
        InPlace: false,
        CPUStartupBoost: false,
        PerVPAConfig: false,
        NativeSidecar: false,
      },
      ignoredFlags: [],
      storage: 'checkpoint',
      prometheus: {
        address: 'http://prometheus.monitoring.svc',
        insecure: false,
        cadvisorJobName: 'kubernetes-cadvisor',
        historyLengthMs: 8 * 86_400_000,
        historyResolution: '1h',
        historyResolutionMs: 3_600_000,
        cpuMetric: 'container_cpu_usage_seconds_total',
        memoryMetric: 'container_memory_working_set_bytes',
        queryTimeoutMs: 300_000,
        podLabelPrefix: 'pod_label_',
        podLabelsMetric: 'up{job="kubernetes-pods"}',
        podNamespaceLabel: 'kubernetes_namespace',
        podNameLabel: 'kubernetes_pod_name',
        containerNamespaceLabel: 'namespace',
        containerPodNameLabel: 'pod_name',
        containerNameLabel: 'name',
        username: '',
        password: '',
        bearerToken: '',
        bearerTokenFile: '',
      },
    });
  });

  it("reads upstream's estimator tuning flags", () => {
    const { estimators } = parseFlags([
      '--target-cpu-percentile=0.8',
      '--target-memory-percentile=0.95',
      '--recommendation-lower-bound-cpu-percentile=0.4',
      '--recommendation-lower-bound-memory-percentile=0.45',
      '--recommendation-upper-bound-cpu-percentile=0.99',
      '--recommendation-upper-bound-memory-percentile=1',
      '--recommendation-margin-fraction=0',
      '--pod-recommendation-min-cpu-millicores=10',
      '--pod-recommendation-min-memory-mb=64',
      '--confidence-interval-cpu=12h',
      '--confidence-interval-memory=48h',
      '--memory-aggregation-interval=1h',
      '--memory-aggregation-interval-count=24',
      '--memory-histogram-decay-half-life=6h',
      '--cpu-histogram-decay-half-life=2h',
      '--oom-bump-up-ratio=1.5',
      '--oom-min-bump-up-bytes=1e6',
      '--round-cpu-millicores=50',
      '--round-memory-bytes=1048576',
      '--humanize-memory=true',
      '--min-checkpoints=3',
    ]);
    expect(estimators).toEqual({
      recommender: {
        targetCpuPercentile: 0.8,
        targetMemoryPercentile: 0.95,
        lowerBoundCpuPercentile: 0.4,
        lowerBoundMemoryPercentile: 0.45,
        upperBoundCpuPercentile: 0.99,
        upperBoundMemoryPercentile: 1,
        recommendationMarginFraction: 0,
        podMinCpuMillicores: 10,
        podMinMemoryMb: 64,
        confidenceIntervalCpuMs: 12 * 3_600_000,
        confidenceIntervalMemoryMs: 48 * 3_600_000,
      },
      aggregation: {
        memoryAggregationIntervalMs: 3_600_000,
        memoryAggregationIntervalCount: 24,
        memoryHistogramDecayHalfLifeMs: 6 * 3_600_000,
        cpuHistogramDecayHalfLifeMs: 2 * 3_600_000,
        oomBumpUpRatio: 1.5,
        oomMinBumpUpBytes: 1_000_000,
      },
      format: {
        roundCpuMillicores: 50,
        roundMemoryBytes: 1_048_576,
        humanizeMemory: true,
      },
    });
  });

  it('reads arguments the way Go does: -name, and booleans with =true or =false', () => {
    const flags = parseFlags([
      '-v=5',
      '-recommender-interval=10s',
      '--memory-saver=true',
      '--leader-elect=false',
      '--prometheus-insecure',
    ]);
    expect(flags).toMatchObject({
      verbosityLogLevel: 'debug',
      recommenderIntervalMs: 10_000,
      memorySaver: true,
      leaderElect: false,
      prometheus: { insecure: true },
    });
  });

  it('reads the --storage=prometheus flags', () => {
    const flags = parseFlags([
      '--storage=prometheus',
      '--prometheus-address=https://prom.example:9090/sub',
      '--prometheus-insecure',
      '--prometheus-cadvisor-job-name=',
      '--history-length=1w',
      '--history-resolution=1h30m',
      '--history-cpu-metric=cpu_total',
      '--history-memory-metric=mem_bytes',
      '--prometheus-query-timeout=30s',
      '--pod-label-prefix=label_',
      '--metric-for-pod-labels=kube_pod_labels[1w]',
      '--pod-namespace-label=ns',
      '--pod-name-label=pod',
      '--container-namespace-label=c_ns',
      '--container-pod-name-label=c_pod',
      '--container-name-label=c_name',
      '--username=u',
      '--password=p',
      '--prometheus-bearer-token=t',
    ]);
    expect(flags.storage).toBe('prometheus');
    expect(flags.prometheus).toEqual({
      address: 'https://prom.example:9090/sub',
      insecure: true,
      cadvisorJobName: '',
      historyLengthMs: 7 * 86_400_000,
      historyResolution: '1h30m',
      historyResolutionMs: 5_400_000,
      cpuMetric: 'cpu_total',
      memoryMetric: 'mem_bytes',
      queryTimeoutMs: 30_000,
      podLabelPrefix: 'label_',
      podLabelsMetric: 'kube_pod_labels[1w]',
      podNamespaceLabel: 'ns',
      podNameLabel: 'pod',
      containerNamespaceLabel: 'c_ns',
      containerPodNameLabel: 'c_pod',
      containerNameLabel: 'c_name',
      username: 'u',
      password: 'p',
      bearerToken: 't',
      bearerTokenFile: '',
    });
  });

  it.each([[''], ['checkpoint']])(
    'takes --storage=%j as checkpoint storage',
    (storage) =>
      expect(parseFlags([`--storage=${storage}`]).storage).toBe('checkpoint'),
  );

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
      '--kube-api-qps=200',
      '--kube-api-burst=250',
      '--list-page-size=0',
      '--cpu-integer-post-processor-enabled',
    ]);
    expect(flags).toMatchObject({
      kubeApiQps: 200,
      kubeApiBurst: 250,
      listPageSize: 0,
      integerCpuPostProcessor: true,
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
      ['--target-cpu-percentile=1.5'],
      "--target-cpu-percentile must be a number from 0 to 1, got '1.5'",
    ],
    [
      ['--recommendation-margin-fraction=-0.1'],
      "--recommendation-margin-fraction must be a number from 0, got '-0.1'",
    ],
    [
      ['--round-memory-bytes=0'],
      "--round-memory-bytes must be a whole number from 1, got '0'",
    ],
    [
      ['--oom-bump-up-ratio=0'],
      'oomBumpUpRatio must be a finite number > 0, got 0',
    ],
    [['--v=loud'], "--v must be a number from 0, got 'loud'"],
    [
      ['-use-external-metrics'],
      '--use-external-metrics is an upstream flag Tandem does not implement: usage comes from metrics.k8s.io or Prometheus; remove it',
    ],
    [['--kube-api-qps=fast'], "--kube-api-qps must be a number, got 'fast'"],
    [
      ['--kube-api-burst=-1'],
      "--kube-api-burst must be a number from 0, got '-1'",
    ],
    [
      ['--list-page-size=-1'],
      "--list-page-size must be a whole number of objects a page (0: unpaginated), got '-1'",
    ],
    [
      ['--list-page-size=100.5'],
      "--list-page-size must be a whole number of objects a page (0: unpaginated), got '100.5'",
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
      ['--storage=memory'],
      "--storage must be checkpoint (or empty) or prometheus, got 'memory'",
    ],
    [
      ['--history-length=8days'],
      "--history-length: '8days' is not a Prometheus duration such as 30m, 1h30m, 8d or 1w (units y, w, d, h, m, s, ms, largest first)",
    ],
    [
      ['--history-resolution=0'],
      "--history-resolution must be positive, got '0'",
    ],
    [
      // A Go duration upstream: no days.
      ['--prometheus-query-timeout=1d'],
      "--prometheus-query-timeout: '1d' is not a duration such as 30s, 1m or 1h30m",
    ],
    [
      ['--prometheus-address=prometheus:9090'],
      "--prometheus-address: 'prometheus:9090' is not an http:// or https:// URL",
    ],
    [
      [
        '--prometheus-bearer-token=t',
        '--prometheus-bearer-token-file=/t',
        '--username=u',
      ],
      '--prometheus-bearer-token, --prometheus-bearer-token-file and --username are mutually exclusive and cannot be set together',
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

  it("starts with the arguments of upstream's chart and manifests: klog flags, profiling and gates", () => {
    const flags = parseFlags([
      '--v=4',
      '--stderrthreshold=info',
      '--logtostderr=false',
      '--profiling=false',
      '--feature-gates=InPlace=true,CPUStartupBoost=false',
      '--leader-elect-resource-lock=leases',
    ]);
    expect(flags.ignoredFlags).toEqual([
      'logtostderr',
      'stderrthreshold',
      'profiling',
    ]);
    expect(flags.featureGates).toEqual({
      InPlace: true,
      CPUStartupBoost: false,
      PerVPAConfig: false,
      NativeSidecar: false,
    });
  });

  it('turns native sidecars on with NativeSidecar=true (ADR 0033)', () => {
    expect(
      parseFlags(['--feature-gates=NativeSidecar=true']).featureGates,
    ).toMatchObject({ NativeSidecar: true, InPlace: false });
  });

  it('refuses by name the gate whose behaviour Tandem lacks', () => {
    expect(() => parseFlags(['--feature-gates=PerVPAConfig=true'])).toThrow(
      /PerVPAConfig/,
    );
  });

  it('takes a known --default-strategy, and names the known ones for any other', () => {
    expect(parseFlags(['--default-strategy=autopilot']).defaultStrategy).toBe(
      'autopilot',
    );
    expect(() => parseFlags(['--default-strategy=autopiot'])).toThrow(
      new FlagError(
        "--default-strategy: unknown strategy 'autopiot': choose one of upstream, autopilot, vivo, tandem",
      ),
    );
  });

  it('rejects unknown flags', () => {
    expect(() => parseFlags(['--recomender-interval=1m'])).toThrow(FlagError);
  });
});
