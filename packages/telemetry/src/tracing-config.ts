import { DiagLogLevel, type Attributes } from '@opentelemetry/api';
import {
  hostDetector,
  osDetector,
  processDetector,
  serviceInstanceIdDetector,
  type ResourceDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';

// Pure readers of the standard OTEL_* variables (and the Downward-API ones): env in,
// configuration out. Problems are reported through `warn` (the app's logger) and the
// variable is then treated as unset, never thrown.

export type Env = Readonly<Record<string, string | undefined>>;

/** Same shape as pino's `logger.warn(fields, message)`. */
export type Warn = (fields: Record<string, unknown>, message: string) => void;

/** `k8s.*` resource attributes from the Downward-API env vars, where set. */
export function kubernetesAttributes(env: Env): Attributes {
  const attributes: Attributes = {};
  const pairs: [string, string][] = [
    ['k8s.pod.name', 'POD_NAME'],
    ['k8s.namespace.name', 'POD_NAMESPACE'],
    ['k8s.node.name', 'NODE_NAME'],
  ];
  for (const [attribute, variable] of pairs) {
    const value = env[variable]?.trim();
    if (value) {
      attributes[attribute] = value;
    }
  }
  return attributes;
}

/**
 * The OTLP/HTTP traces URL the standard env vars ask for, or undefined when tracing
 * export is off: `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` switch it off;
 * otherwise `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; neither set → undefined.
 */
export function otlpTracesUrl(env: Env): string | undefined {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') {
    return undefined;
  }
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) {
    return undefined;
  }
  const signal = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (signal) {
    return signal;
  }
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (base) {
    return `${base.replace(/\/+$/, '')}/v1/traces`;
  }
  return undefined;
}

export interface BatchOptions {
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
}

/**
 * Batch span processor settings from the standard `OTEL_BSP_*` variables (the SDK's
 * processor does not read them itself); unset or invalid values keep the SDK defaults
 * (queue 2048, batch 512, delay 5000 ms, timeout 30000 ms). The batch is capped at the
 * queue size, as the specification requires.
 */
export function batchOptionsFromEnv(env: Env): BatchOptions {
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const value = Number(raw);
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const options: BatchOptions = {};
  const maxQueueSize = read('OTEL_BSP_MAX_QUEUE_SIZE');
  const maxExportBatchSize = read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE');
  const scheduledDelayMillis = read('OTEL_BSP_SCHEDULE_DELAY');
  const exportTimeoutMillis = read('OTEL_BSP_EXPORT_TIMEOUT');
  if (maxQueueSize !== undefined && maxQueueSize > 0)
    options.maxQueueSize = maxQueueSize;
  if (maxExportBatchSize !== undefined && maxExportBatchSize > 0) {
    options.maxExportBatchSize = Math.min(
      maxExportBatchSize,
      options.maxQueueSize ?? 2048,
    );
  }
  if (scheduledDelayMillis !== undefined)
    options.scheduledDelayMillis = scheduledDelayMillis;
  if (exportTimeoutMillis !== undefined)
    options.exportTimeoutMillis = exportTimeoutMillis;
  return options;
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` (and `OTEL_TRACES_SAMPLER_ARG` for the ratio ones)
 * names; unset, or a name not supported here, gives the specification's default,
 * `parentbased_always_on`. Always a sampler, so that NodeSDK never reads its own.
 */
export function samplerFromEnv(env: Env, warn: Warn): Sampler {
  const name = env['OTEL_TRACES_SAMPLER']?.trim().toLowerCase();
  const ratio = (): number => {
    const raw = env['OTEL_TRACES_SAMPLER_ARG']?.trim();
    if (!raw) return 1;
    const value = Number(raw);
    if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
    warn(
      { variable: 'OTEL_TRACES_SAMPLER_ARG', value: raw },
      'sampler ratio is not a number from 0 to 1; using 1',
    );
    return 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({
        root: new TraceIdRatioBasedSampler(ratio()),
      });
    case undefined:
    case '':
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      warn(
        { variable: 'OTEL_TRACES_SAMPLER', value: name },
        'unsupported sampler; using parentbased_always_on',
      );
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES`: comma-separated `key=value` pairs, `,` and `=` (and
 * anything else) percent-encoded. As the specification asks, a value that does not
 * parse is discarded as a whole.
 */
export function resourceAttributesFromEnv(env: Env, warn: Warn): Attributes {
  const raw = env['OTEL_RESOURCE_ATTRIBUTES']?.trim();
  if (!raw) return {};
  const attributes: Attributes = {};
  for (const pair of raw.split(',')) {
    if (!pair.trim()) continue;
    const parts = pair.split('=');
    const key = parts.length === 2 ? decode(parts[0]) : undefined;
    const value = parts.length === 2 ? decode(parts[1]) : undefined;
    if (!key || value === undefined) {
      warn(
        { variable: 'OTEL_RESOURCE_ATTRIBUTES', value: raw },
        'resource attributes are not comma-separated key=value pairs (percent-encoded); ignored',
      );
      return {};
    }
    attributes[key] = value;
  }
  return attributes;
}

function decode(text: string | undefined): string | undefined {
  try {
    return decodeURIComponent((text ?? '').trim());
  } catch {
    return undefined;
  }
}

/**
 * The resource detectors `OTEL_NODE_RESOURCE_DETECTORS` selects, with NodeSDK's names
 * and default (`all`): `serviceinstance`, `process`, `host`, `os`, and `env`, which
 * here reads `OTEL_RESOURCE_ATTRIBUTES` from `env` rather than from process.env.
 */
export function resourceDetectorsFromEnv(
  env: Env,
  warn: Warn,
): ResourceDetector[] {
  const envDetector: ResourceDetector = {
    detect: () => ({ attributes: resourceAttributesFromEnv(env, warn) }),
  };
  const detectors = new Map<string, ResourceDetector>([
    ['serviceinstance', serviceInstanceIdDetector],
    ['process', processDetector],
    ['host', hostDetector],
    ['os', osDetector],
    ['env', envDetector],
  ]);
  const names = (env['OTEL_NODE_RESOURCE_DETECTORS'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes('all'))
    return [...detectors.values()];
  if (names.includes('none')) return [];
  return names.flatMap((name) => {
    const detector = detectors.get(name);
    if (!detector) {
      warn(
        { variable: 'OTEL_NODE_RESOURCE_DETECTORS', value: name },
        'unknown resource detector; skipped',
      );
    }
    return detector ? [detector] : [];
  });
}

const DIAG_LEVELS = new Map<string, DiagLogLevel>([
  ['none', DiagLogLevel.NONE],
  ['error', DiagLogLevel.ERROR],
  ['warn', DiagLogLevel.WARN],
  ['info', DiagLogLevel.INFO],
  ['debug', DiagLogLevel.DEBUG],
  ['verbose', DiagLogLevel.VERBOSE],
  ['all', DiagLogLevel.ALL],
]);

/**
 * The level of the SDK's own diagnostics (`OTEL_LOG_LEVEL`) that reach the app's
 * logger; warn when unset or unknown (the SDK's info messages are not worth a line).
 */
export function diagLogLevelFromEnv(env: Env): DiagLogLevel {
  const name = env['OTEL_LOG_LEVEL']?.trim().toLowerCase() ?? '';
  return DIAG_LEVELS.get(name) ?? DiagLogLevel.WARN;
}
