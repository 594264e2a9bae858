import { DiagLogLevel } from '@opentelemetry/api';
import {
  hostDetector,
  osDetector,
  processDetector,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import {
  batchOptionsFromEnv,
  diagLogLevelFromEnv,
  kubernetesAttributes,
  otlpTracesUrl,
  resourceAttributesFromEnv,
  resourceDetectorsFromEnv,
  samplerFromEnv,
  type Warn,
} from './tracing-config.js';

/** A `warn` that keeps what it was told. */
function warnings(): { warn: Warn; told: Record<string, unknown>[] } {
  const told: Record<string, unknown>[] = [];
  return {
    warn: (fields, msg) => void told.push({ ...fields, msg }),
    told,
  };
}

describe('env helpers', () => {
  it('resolves the traces URL from the standard env vars', () => {
    expect(otlpTracesUrl({})).toBeUndefined();
    expect(
      otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }),
    ).toBeUndefined();
    expect(
      otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBe('http://c:4318/v1/traces');
    expect(
      otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/base//' }),
    ).toBe('http://c:4318/base/v1/traces');
    expect(
      otlpTracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9999/custom',
      }),
    ).toBe('http://t:9999/custom');
    expect(
      otlpTracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_SDK_DISABLED: 'TRUE',
      }),
    ).toBeUndefined();
    expect(
      otlpTracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_TRACES_EXPORTER: 'none',
      }),
    ).toBeUndefined();
    expect(
      otlpTracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_TRACES_EXPORTER: 'otlp',
      }),
    ).toBe('http://c:4318/v1/traces');
  });

  it('reads the batch span processor settings from OTEL_BSP_*', () => {
    expect(batchOptionsFromEnv({})).toEqual({});
    expect(
      batchOptionsFromEnv({
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
        OTEL_BSP_SCHEDULE_DELAY: '250',
        OTEL_BSP_EXPORT_TIMEOUT: '1000',
      }),
    ).toEqual({
      maxQueueSize: 100,
      maxExportBatchSize: 100,
      scheduledDelayMillis: 250,
      exportTimeoutMillis: 1000,
    });
    expect(
      batchOptionsFromEnv({
        OTEL_BSP_MAX_QUEUE_SIZE: '0',
        OTEL_BSP_SCHEDULE_DELAY: 'soon',
        OTEL_BSP_EXPORT_TIMEOUT: '-1',
      }),
    ).toEqual({});
  });

  it('maps POD_NAME, POD_NAMESPACE and NODE_NAME to k8s.* attributes when present', () => {
    expect(kubernetesAttributes({})).toEqual({});
    expect(kubernetesAttributes({ POD_NAME: 'p', NODE_NAME: '' })).toEqual({
      'k8s.pod.name': 'p',
    });
    expect(
      kubernetesAttributes({
        POD_NAME: 'p',
        POD_NAMESPACE: 'ns',
        NODE_NAME: 'n',
      }),
    ).toEqual({
      'k8s.pod.name': 'p',
      'k8s.namespace.name': 'ns',
      'k8s.node.name': 'n',
    });
  });

  it('reads OTEL_RESOURCE_ATTRIBUTES as percent-encoded key=value pairs', () => {
    const { warn, told } = warnings();
    expect(resourceAttributesFromEnv({}, warn)).toEqual({});
    expect(
      resourceAttributesFromEnv(
        {
          OTEL_RESOURCE_ATTRIBUTES:
            ' k8s.cluster.name = prod-eu ,, deployment.environment.name=staging%2Ceu,team=a%3Db ',
        },
        warn,
      ),
    ).toEqual({
      'k8s.cluster.name': 'prod-eu',
      'deployment.environment.name': 'staging,eu',
      team: 'a=b',
    });
    expect(told).toEqual([]);
  });

  it.each(['a=1,b', 'a=1,=2', 'a=1,b=c=d', 'a=%E0%A4%A'])(
    'discards OTEL_RESOURCE_ATTRIBUTES=%j as a whole, and says so',
    (raw) => {
      const { warn, told } = warnings();
      expect(
        resourceAttributesFromEnv({ OTEL_RESOURCE_ATTRIBUTES: raw }, warn),
      ).toEqual({});
      expect(told).toEqual([
        expect.objectContaining({
          variable: 'OTEL_RESOURCE_ATTRIBUTES',
          value: raw,
        }),
      ]);
    },
  );

  it("selects NodeSDK's resource detectors by OTEL_NODE_RESOURCE_DETECTORS", () => {
    const { warn, told } = warnings();
    const all = [
      serviceInstanceIdDetector,
      processDetector,
      hostDetector,
      osDetector,
    ];
    // The fifth, `env`, is this package's: it reads OTEL_RESOURCE_ATTRIBUTES from `env`.
    const env = { OTEL_RESOURCE_ATTRIBUTES: 'from=env' };
    const byDefault = resourceDetectorsFromEnv(env, warn);
    expect(byDefault.slice(0, 4)).toEqual(all);
    expect(byDefault).toHaveLength(5);
    expect(byDefault[4]?.detect().attributes).toEqual({ from: 'env' });
    expect(
      resourceDetectorsFromEnv(
        { ...env, OTEL_NODE_RESOURCE_DETECTORS: 'ALL' },
        warn,
      ),
    ).toHaveLength(5);
    expect(
      resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'none' }, warn),
    ).toEqual([]);
    expect(
      resourceDetectorsFromEnv(
        { OTEL_NODE_RESOURCE_DETECTORS: 'host, process,gcp' },
        warn,
      ),
    ).toEqual([hostDetector, processDetector]);
    expect(told).toEqual([
      expect.objectContaining({
        variable: 'OTEL_NODE_RESOURCE_DETECTORS',
        value: 'gcp',
      }),
    ]);
  });

  it('builds the sampler OTEL_TRACES_SAMPLER names, parentbased_always_on by default', () => {
    const { warn, told } = warnings();
    const sampler = (env: Record<string, string>) =>
      String(samplerFromEnv(env, warn));
    const parentBased = (root: string) =>
      expect.stringMatching(new RegExp(`^ParentBased\\{root=${root},`));
    expect(sampler({})).toEqual(parentBased('AlwaysOnSampler'));
    expect(sampler({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toEqual(
      parentBased('AlwaysOnSampler'),
    );
    expect(sampler({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(
      'AlwaysOnSampler',
    );
    expect(sampler({ OTEL_TRACES_SAMPLER: ' Always_Off ' })).toBe(
      'AlwaysOffSampler',
    );
    expect(sampler({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual(
      parentBased('AlwaysOffSampler'),
    );
    expect(
      sampler({
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toBe('TraceIdRatioBased{0.25}');
    expect(
      sampler({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      }),
    ).toEqual(parentBased('TraceIdRatioBased\\{0\\}'));
    expect(told).toEqual([]);

    expect(
      sampler({
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }),
    ).toBe('TraceIdRatioBased{1}');
    expect(sampler({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toEqual(
      parentBased('AlwaysOnSampler'),
    );
    expect(told).toEqual([
      expect.objectContaining({
        variable: 'OTEL_TRACES_SAMPLER_ARG',
        value: '2',
      }),
      expect.objectContaining({
        variable: 'OTEL_TRACES_SAMPLER',
        value: 'jaeger_remote',
      }),
    ]);
  });

  it("reads the SDK's diagnostics level from OTEL_LOG_LEVEL, warn by default", () => {
    expect(diagLogLevelFromEnv({})).toBe(DiagLogLevel.WARN);
    expect(diagLogLevelFromEnv({ OTEL_LOG_LEVEL: 'DEBUG' })).toBe(
      DiagLogLevel.DEBUG,
    );
    expect(diagLogLevelFromEnv({ OTEL_LOG_LEVEL: 'none' })).toBe(
      DiagLogLevel.NONE,
    );
    expect(diagLogLevelFromEnv({ OTEL_LOG_LEVEL: 'constructor' })).toBe(
      DiagLogLevel.WARN,
    );
  });
});
