export {
  startTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from './telemetry.js';
export { inSpan } from './in-span.js';
export { EVENT_REASON_ATTRIBUTE } from './span-attributes.js';
export {
  startOpsServer,
  type HealthCheck,
  type OpsServer,
  type OpsServerOptions,
} from './ops-server.js';
export {
  combineHealth,
  cycleHealth,
  DEFAULT_MAX_INTERVALS,
  healthy,
  leaderCycleHealth,
  unhealthy,
  type CycleHealthInput,
  type HealthReport,
} from './health.js';
export {
  createLogger,
  logLevelFromEnv,
  type Logger,
  type LoggerOptions,
} from './logger.js';
export {
  Counter,
  createRegistry,
  Gauge,
  Histogram,
  Registry,
} from './metrics.js';
export {
  batchOptionsFromEnv,
  kubernetesAttributes,
  otlpTracesUrl,
  type BatchOptions,
  type Env,
} from './tracing-config.js';
export { AsyncLocalStorageContextManager } from './context-manager.js';
export {
  cycleLoop,
  type CycleLoop,
  type LoopLeadership,
} from './cycle-loop.js';
