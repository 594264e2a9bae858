import { capture } from './log-capture.fixtures.js';
import { createLogger, logLevelFromEnv } from './logger.js';
import { startTelemetry } from './telemetry.js';

describe('logger', () => {
  it('writes one JSON object per line with level, time, msg and the service', () => {
    const { destination, lines } = capture();
    const logger = createLogger({
      serviceName: 'tandem-recommender',
      serviceVersion: '1.2.3',
      env: {},
      destination,
    });
    const before = Date.now();
    logger.info({ vpas: 3 }, 'cycle done');
    logger.error(new Error('boom'), 'cycle failed');
    logger.debug('hidden at info');

    const [info, error, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(info).toMatchObject({
      level: 'info',
      msg: 'cycle done',
      service: 'tandem-recommender',
      version: '1.2.3',
      vpas: 3,
      pid: process.pid,
    });
    expect(typeof info?.['time']).toBe('number');
    expect(info?.['time']).toBeGreaterThanOrEqual(before);
    expect(error).toMatchObject({ level: 'error', msg: 'cycle failed' });
    expect(error?.['err']).toMatchObject({ type: 'Error', message: 'boom' });
  });

  it('takes the level from LOG_LEVEL', () => {
    const { destination, lines } = capture();
    const logger = createLogger({
      serviceName: 's',
      serviceVersion: 'v',
      env: { LOG_LEVEL: 'DEBUG' },
      destination,
    });
    logger.debug('shown');
    logger.trace('hidden');
    expect(lines().map((line) => [line['level'], line['msg']])).toEqual([
      ['debug', 'shown'],
    ]);
  });

  it('falls back to info on an unknown LOG_LEVEL and says so', () => {
    expect(logLevelFromEnv({})).toBe('info');
    expect(logLevelFromEnv({ LOG_LEVEL: ' warn ' })).toBe('warn');
    expect(logLevelFromEnv({ LOG_LEVEL: 'verbose' })).toBe('info');
    const { destination, lines } = capture();
    createLogger({
      serviceName: 's',
      serviceVersion: 'v',
      env: { LOG_LEVEL: 'verbose' },
      destination,
    });
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        LOG_LEVEL: 'verbose',
        msg: 'unknown LOG_LEVEL, using info',
      }),
    ]);
  });

  it('is the logger startTelemetry returns', async () => {
    const { destination, lines } = capture();
    const telemetry = startTelemetry({
      serviceName: 'tandem-updater',
      serviceVersion: '0.1.0',
      env: { LOG_LEVEL: 'warn' },
      logDestination: destination,
    });
    telemetry.logger.info('hidden');
    telemetry.logger.warn('evictions throttled');
    await telemetry.shutdown();
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'evictions throttled',
        service: 'tandem-updater',
      }),
    ]);
  });
});
