import type { Attributes, Tracer } from '@opentelemetry/api';
import type { DestinationStream, Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createLogger } from './logger.js';
import { createRegistry } from './metrics.js';
import type { Env } from './tracing-config.js';
import { startTracing } from './tracing.js';

export interface TelemetryOptions {
  /** `service.name`, e.g. `tandem-recommender`. */
  readonly serviceName: string;
  /** `service.version`. */
  readonly serviceVersion: string;
  /** Extra resource attributes; `service.*` and `k8s.*` from env win over these. */
  readonly attributes?: Attributes;
  /** Environment to read OTEL_*, LOG_LEVEL, POD_* and NODE_NAME from; process.env by default. */
  readonly env?: Env;
  /** Where log lines go; stdout by default. */
  readonly logDestination?: DestinationStream;
}

export interface Telemetry {
  /** Tracer for `inSpan`; a no-op tracer when no OTLP endpoint is configured. */
  readonly tracer: Tracer;
  /** A private prom-client registry with Node's default metrics, for /metrics. */
  readonly metrics: Registry;
  /** JSON logger (pino), level from LOG_LEVEL (default info). */
  readonly logger: Logger;
  /** The OTLP/HTTP traces URL spans are sent to, or undefined when nothing is exported. */
  readonly traceExportUrl: string | undefined;
  /** Flushes and stops span export and releases the global tracer provider. Idempotent. */
  shutdown(): Promise<void>;
}

/** Starts tracing, a metrics registry and a logger for one Tandem app. */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  const logger = createLogger({
    serviceName: options.serviceName,
    serviceVersion: options.serviceVersion,
    env,
    destination: options.logDestination,
  });
  const tracing = startTracing({
    serviceName: options.serviceName,
    serviceVersion: options.serviceVersion,
    attributes: options.attributes,
    env,
    logger,
  });
  let shutdown: Promise<void> | undefined;
  return {
    tracer: tracing.tracer,
    metrics: createRegistry(),
    logger,
    traceExportUrl: tracing.exportUrl,
    shutdown: () => {
      shutdown ??= tracing.shutdown().finally(() => logger.flush());
      return shutdown;
    },
  };
}
