import { FlagError } from '@tandem/flags';
import { parseFlags } from './flags.js';

describe('parseFlags', () => {
  it('defaults to every namespace, :8080, 15 s samples and a day of history', () => {
    expect(parseFlags([])).toMatchObject({
      address: { host: '0.0.0.0', port: 8080 },
      namespace: undefined,
      sampleIntervalMs: 15_000,
      historyMs: 24 * 3600_000,
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
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});
