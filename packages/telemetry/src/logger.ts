import { hostname } from 'node:os';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { Env } from './tracing-config.js';

export type { Logger } from 'pino';

const LEVELS: readonly string[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** The pino level LOG_LEVEL asks for (case-insensitive); `info` when unset or unknown. */
export function logLevelFromEnv(env: Env): Level | 'silent' {
  const wanted = env['LOG_LEVEL']?.trim().toLowerCase();
  return wanted && LEVELS.includes(wanted)
    ? (wanted as Level | 'silent')
    : 'info';
}

export interface LoggerOptions {
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly env: Env;
  /** Where the JSON lines go; stdout when omitted. */
  readonly destination?: DestinationStream;
}

/**
 * One JSON object per line: `level` (label, e.g. "info"), `time` (ms since the epoch),
 * `service`, `version`, `pid`, `hostname`, `msg`, plus whatever the call adds.
 */
export function createLogger(options: LoggerOptions): Logger {
  const requested = options.env['LOG_LEVEL']?.trim().toLowerCase();
  const level = logLevelFromEnv(options.env);
  const logger = pino(
    {
      level,
      base: {
        service: options.serviceName,
        version: options.serviceVersion,
        pid: process.pid,
        hostname: hostname(),
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  if (requested && !LEVELS.includes(requested)) {
    logger.warn(
      { LOG_LEVEL: options.env['LOG_LEVEL'] },
      'unknown LOG_LEVEL, using info',
    );
  }
  return logger;
}
