import {
  context,
  diag,
  logs,
  ProxyTracerProvider,
  trace,
  type Attributes,
  type ContextManager,
  type DiagLogger,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  type ResourceDetector,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  TracerProvider as SdkTracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import {
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import { AsyncLocalStorageContextManager } from './context-manager.js';
import {
  batchOptionsFromEnv,
  diagLogLevelFromEnv,
  kubernetesAttributes,
  otlpTracesUrl,
  resourceDetectorsFromEnv,
  samplerFromEnv,
  type Env,
  type Warn,
} from './tracing-config.js';

// Tracing starts through NodeSDK (@opentelemetry/sdk-node), the same way in every app.
//
// Which environment wins: NodeSDK and the OTLP exporter read OTEL_* from process.env on
// their own, while Tandem reads them from `options.env` (a copy of process.env in the
// apps, a custom one in tests). Everything that decides whether, where and what is
// exported is read from `options.env` and handed to NodeSDK as explicit configuration,
// which it prefers over its own reading: on/off and the endpoint (OTEL_SDK_DISABLED,
// OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT), OTEL_BSP_*, the sampler
// (OTEL_TRACES_SAMPLER[_ARG]), the resource (OTEL_RESOURCE_ATTRIBUTES,
// OTEL_NODE_RESOURCE_DETECTORS) and the diag level (OTEL_LOG_LEVEL). Left to process.env:
// the exporter's headers, timeout and compression (OTEL_EXPORTER_OTLP_*) and span limits
// (OTEL_SPAN_*, OTEL_ATTRIBUTE_*). What NodeSDK would otherwise add from its env —
// metrics and logs exporters, propagators, instrumentations — is switched off explicitly.

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

/**
 * Registers an AsyncLocalStorage context manager once per process (unless another one
 * is already registered): it is stateless and shared by every Telemetry instance, and
 * context propagates through the no-op tracer's spans too, so it outlives any NodeSDK.
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

/**
 * NodeSDK leaves the global context manager alone when given null (`setupContextManager`
 * in sdk-node), though its type only admits a ContextManager; otherwise it would try to
 * register @opentelemetry/context-async-hooks' one over ensureContextManager's.
 */
const KEEP_CONTEXT_MANAGER = null as unknown as ContextManager;

/** What both ways of starting share: the same resource, processors and sampler. */
interface Pipeline {
  readonly resourceDetectors: ResourceDetector[];
  readonly spanProcessors: SpanProcessor[];
  readonly sampler: Sampler;
}

interface Started {
  readonly provider: TracerProvider;
  readonly global: boolean;
  /** Flushes and stops the provider. */
  shutdown(): Promise<void>;
  /** Gives the globals back (after shutdown, whether it failed or not). */
  release(): void;
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
  const warn: Warn = (fields, message) => options.logger.warn(fields, message);
  const pipeline: Pipeline = {
    resourceDetectors: [
      ...resourceDetectorsFromEnv(options.env, warn),
      // Last, so that the app's attributes win over detected ones: the specification
      // ranks resource attributes the app provides above OTEL_RESOURCE_ATTRIBUTES.
      {
        detect: () => ({
          attributes: {
            ...options.attributes,
            ...kubernetesAttributes(options.env),
            [ATTR_SERVICE_NAME]: options.serviceName,
            [ATTR_SERVICE_VERSION]: options.serviceVersion,
          },
        }),
      },
    ],
    spanProcessors: [
      new BatchSpanProcessor({
        ...batchOptionsFromEnv(options.env),
        exporter: new OTLPTraceExporter({ url: exportUrl }),
      }),
    ],
    sampler: samplerFromEnv(options.env, warn),
  };
  const started =
    startNodeSdk(pipeline, options) ?? startPrivateProvider(pipeline);

  let shutdown: Promise<void> | undefined;
  return {
    tracer: started.provider.getTracer(
      options.serviceName,
      options.serviceVersion,
    ),
    exportUrl,
    global: started.global,
    shutdown: () => {
      shutdown ??= started
        .shutdown()
        .catch((error: unknown) => {
          // The process is going down anyway: say what was lost, don't fail the exit path.
          options.logger.error(
            { err: error, component: 'opentelemetry', url: exportUrl },
            'flushing spans on shutdown failed',
          );
        })
        .finally(() => started.release());
      return shutdown;
    },
  };
}

/**
 * The first live instance starts NodeSDK, which registers the global tracer provider
 * (so code using `trace.getTracer()` from @opentelemetry/api sees it). Undefined when a
 * tracer provider is registered already (another live instance, another SDK) or NodeSDK
 * registered none (OTEL_SDK_DISABLED=true in process.env, while `env` asks for export).
 */
function startNodeSdk(
  pipeline: Pipeline,
  options: TracingOptions,
): Started | undefined {
  if (registeredTracerProvider() !== undefined) {
    return undefined;
  }
  const loggerProviderBefore = logs.getLoggerProvider();
  const sdk = new NodeSDK({
    ...pipeline,
    autoDetectResources: true,
    contextManager: KEEP_CONTEXT_MANAGER,
    // None registered, as before: nothing injects, and request spans stay roots.
    textMapPropagator: null,
    instrumentations: [],
    metricReaders: [],
    // NodeSDK still registers a logger provider, with no processor: nothing is exported.
    logRecordProcessors: [],
  });
  // The SDK reports failed exports through the global diag logger; send them to ours.
  // Set after the constructor, which installs a console one when process.env has
  // OTEL_LOG_LEVEL.
  diag.setLogger(
    diagToPino(options.logger.child({ component: 'opentelemetry' })),
    {
      logLevel: diagLogLevelFromEnv(options.env),
      suppressOverrideMessage: true,
    },
  );
  sdk.start();
  const provider = registeredTracerProvider();
  if (provider === undefined) {
    diag.disable();
    return undefined;
  }
  const ownsLoggerProvider = logs.getLoggerProvider() !== loggerProviderBefore;
  return {
    provider,
    global: true,
    shutdown: () => sdk.shutdown(),
    release: () => {
      // NodeSDK's shutdown stops the providers but leaves them registered.
      trace.disable();
      if (ownsLoggerProvider) logs.disable();
      diag.disable();
    },
  };
}

/**
 * Later instances keep a private provider and never touch the globals; NodeSDK would
 * register globals a second time. Same resource as NodeSDK builds (its default resource,
 * then the detectors in order), same processors and sampler.
 */
function startPrivateProvider(pipeline: Pipeline): Started {
  const provider = new SdkTracerProvider({
    resource: defaultResource().merge(
      detectResources({ detectors: pipeline.resourceDetectors }),
    ),
    spanProcessors: pipeline.spanProcessors,
    sampler: pipeline.sampler,
  });
  return {
    provider,
    global: false,
    shutdown: () => provider.shutdown(),
    release: () => undefined,
  };
}

/** A provider with no delegate answers with the API's no-op provider. */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** The tracer provider registered with @opentelemetry/api, or undefined when none is. */
function registeredTracerProvider(): TracerProvider | undefined {
  const global = trace.getTracerProvider();
  const provider =
    global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  return provider === NO_TRACER_PROVIDER ? undefined : provider;
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
