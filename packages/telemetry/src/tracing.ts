import {
  context,
  diag,
  DiagLogLevel,
  ProxyTracerProvider,
  trace,
  type Attributes,
  type DiagLogger,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import { AsyncLocalStorageContextManager } from './context-manager.js';

export type Env = Readonly<Record<string, string | undefined>>;

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

export interface TracingOptions {
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly attributes?: Attributes;
  readonly env: Env;
  /** Receives the SDK's own warnings and errors (e.g. failed exports). */
  readonly logger: Logger;
}

export interface Tracing {
  readonly tracer: Tracer;
  /** Where spans go, or undefined when tracing is a no-op. */
  readonly exportUrl: string | undefined;
  /** True when this instance registered the global tracer provider. */
  readonly global: boolean;
  shutdown(): Promise<void>;
}

let contextManagerInstalled = false;
let globalOwner: object | undefined;

/**
 * Registers an AsyncLocalStorage context manager once per process (unless another one
 * is already registered): it is stateless and shared by every Telemetry instance.
 */
function ensureContextManager(): void {
  if (contextManagerInstalled) {
    return;
  }
  contextManagerInstalled = true;
  const manager = new AsyncLocalStorageContextManager();
  if (!context.setGlobalContextManager(manager)) {
    // Someone registered one first (another SDK): theirs propagates context too.
    manager.disable();
  }
}

export function startTracing(options: TracingOptions): Tracing {
  ensureContextManager();
  let exportUrl = otlpTracesUrl(options.env);
  if (exportUrl !== undefined && !isHttpUrl(exportUrl)) {
    options.logger.warn(
      { url: exportUrl },
      'OTLP traces endpoint is not an http(s) URL; traces are not exported',
    );
    exportUrl = undefined;
  }
  if (exportUrl === undefined) {
    // No exporter: a tracer from a provider with no delegate is the API's no-op tracer.
    // Spans are non-recording, but context still propagates through them.
    const tracer = new ProxyTracerProvider().getTracer(
      options.serviceName,
      options.serviceVersion,
    );
    return {
      tracer,
      exportUrl,
      global: false,
      shutdown: () => Promise.resolve(),
    };
  }

  warnOnUnsupportedProtocol(options.env, options.logger);
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...options.attributes,
      ...kubernetesAttributes(options.env),
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
    }),
  );
  const provider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({
        ...batchOptionsFromEnv(options.env),
        exporter: new OTLPTraceExporter({ url: exportUrl }),
      }),
    ],
  });

  // The first live instance owns the global tracer provider (so code using
  // `trace.getTracer()` from @opentelemetry/api sees it); later instances keep a
  // private provider and never touch the globals. Shutdown gives the globals back.
  const owner = {};
  let global = false;
  if (globalOwner === undefined && trace.setGlobalTracerProvider(provider)) {
    globalOwner = owner;
    global = true;
    // The SDK reports failed exports through the global diag logger; send them to ours.
    diag.setLogger(
      diagToPino(options.logger.child({ component: 'opentelemetry' })),
      {
        logLevel: DiagLogLevel.WARN,
        suppressOverrideMessage: true,
      },
    );
  }

  let shutdown: Promise<void> | undefined;
  return {
    tracer: provider.getTracer(options.serviceName, options.serviceVersion),
    exportUrl,
    global,
    shutdown: () => {
      shutdown ??= provider
        .shutdown()
        .catch((error: unknown) => {
          // The process is going down anyway: say what was lost, don't fail the exit path.
          options.logger.error(
            { err: error, component: 'opentelemetry', url: exportUrl },
            'flushing spans on shutdown failed',
          );
        })
        .finally(() => {
          if (globalOwner === owner) {
            trace.disable();
            diag.disable();
            globalOwner = undefined;
          }
        });
      return shutdown;
    },
  };
}

function warnOnUnsupportedProtocol(env: Env, logger: Logger): void {
  const protocol = (
    env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ??
    env['OTEL_EXPORTER_OTLP_PROTOCOL']
  )?.trim();
  if (protocol && protocol !== 'http/json') {
    logger.warn(
      { protocol },
      'traces are exported as OTLP/HTTP JSON (http/json) only; ignoring the configured protocol',
    );
  }
}

function diagToPino(logger: Logger): DiagLogger {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, ...args: unknown[]) => {
      const error = args.find((arg): arg is Error => arg instanceof Error);
      const rest = args.filter((arg) => arg !== error);
      logger[level](
        {
          ...(error ? { err: error } : {}),
          ...(rest.length ? { args: rest.map(String) } : {}),
        },
        message,
      );
    };
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('trace'),
  };
}

function isHttpUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:';
}
