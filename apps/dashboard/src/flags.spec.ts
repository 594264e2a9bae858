import { FlagError } from '@tandem/flags';
import { parseFlags } from './flags.js';

describe('parseFlags', () => {
  it('defaults to every namespace, :8080, 15 s samples and a day of history', () => {
    expect(parseFlags([])).toMatchObject({
      address: { host: '0.0.0.0', port: 8080 },
      namespace: undefined,
      sampleIntervalMs: 15_000,
      historyMs: 24 * 3600_000,
      prometheus: undefined,
    });
  });

  it('reads where older history comes from', () => {
    expect(
      parseFlags([
        '--prometheus-url=https://prometheus.monitoring.svc:9090/prom',
        '--prometheus-bearer-token-file=/var/run/token',
      ]).prometheus,
    ).toEqual({
      url: 'https://prometheus.monitoring.svc:9090/prom',
      queryTimeoutMs: 10_000,
      bearerTokenFile: '/var/run/token',
    });
  });

  it('reads the flags Go-style', () => {
    expect(
      parseFlags([
        '--address=127.0.0.1:9000',
        '--namespace',
        'shop',
        '--sample-interval=30s',
        '--history=2h',
      ]),
    ).toMatchObject({
      address: { host: '127.0.0.1', port: 9000 },
      namespace: 'shop',
      sampleIntervalMs: 30_000,
      historyMs: 7_200_000,
    });
  });

  it.each([
    [['--sample-interval=500ms'], '--sample-interval must be at least 1s'],
    [
      ['--sample-interval=1m', '--history=30s'],
      '--history must be at least --sample-interval',
    ],
    [['--bogus'], "Unknown option '--bogus'"],
    [
      ['--prometheus-url=prometheus:9090'],
      '--prometheus-url "prometheus:9090" is not an http:// or https:// URL',
    ],
    [
      ['--prometheus-url=http://p', '--prometheus-query-timeout=soon'],
      'prometheus-query-timeout',
    ],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});
