import {
  configureStrategy,
  STRATEGIES,
  strategyDefinition,
  upstream,
} from '@tandem/strategies';
import { parseCommandLine, UsageError } from './args.js';

describe('parseCommandLine', () => {
  it('reads a recommend command with defaults', () => {
    expect(parseCommandLine(['recommend', '--usage', 'u.csv'])).toEqual({
      kind: 'recommend',
      usageFile: 'u.csv',
      output: 'table',
      progress: true,
    });
  });

  it('reads --output json and --no-progress', () => {
    expect(
      parseCommandLine([
        'recommend',
        '--usage=u.csv',
        '-o',
        'json',
        '--no-progress',
      ]),
    ).toEqual({
      kind: 'recommend',
      usageFile: 'u.csv',
      output: 'json',
      progress: false,
    });
  });

  it.each([
    [['recommend'], 'recommend needs --usage <file.csv>'],
    [
      ['recommend', '--usage', 'u.csv', '--output', 'yaml'],
      "--output must be one of table, json, not 'yaml'",
    ],
    [['forecast'], "unknown command 'forecast'"],
    [['replay'], 'replay needs --usage <file.csv>'],
    [['recommend', 'extra', '--usage', 'u.csv'], "unexpected argument 'extra'"],
  ])('rejects %j with a precise message', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(new UsageError(message));
  });

  it('turns unknown options into a UsageError', () => {
    expect(() => parseCommandLine(['recommend', '--usgae', 'u.csv'])).toThrow(
      UsageError,
    );
  });

  it('shows help without a command, and for --help', () => {
    expect(parseCommandLine([])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['recommend', '--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
  });
});

describe('parseCommandLine: replay', () => {
  function replay(...argv: string[]) {
    const command = parseCommandLine(['replay', '--usage', 'u.csv', ...argv]);
    if (command.kind !== 'replay') throw new Error(`got ${command.kind}`);
    return {
      ...command,
      strategies: command.strategies.map((s) => [s.name, s.parameters]),
    };
  }

  const defaults = (name: string) => {
    const found = strategyDefinition(name);
    if ('error' in found) throw new Error(found.error);
    const configured = configureStrategy(found.definition);
    if ('error' in configured) throw new Error(configured.error);
    return configured.strategy.parameters;
  };

  it('replays every registered strategy under evict by default', () => {
    expect(replay()).toEqual({
      kind: 'replay',
      usageFile: 'u.csv',
      capacityFile: undefined,
      strategies: STRATEGIES.map((d) => [d.name, defaults(d.name)]),
      apply: ['evict'],
      output: 'table',
      plotFile: undefined,
      progress: true,
    });
  });

  it('puts the static baseline first when a capacity file is given', () => {
    const command = replay('--capacity', 'c.csv');
    expect(command.capacityFile).toBe('c.csv');
    expect(command.strategies).toEqual([
      ['static', {}],
      ...STRATEGIES.map((d) => [d.name, defaults(d.name)]),
    ]);
  });

  it('reads strategies with parameters, in the order given, and repeated --apply', () => {
    const command = replay(
      '--strategy',
      'autopilot:margin=0.1,cpu-half-life=6h',
      '--strategy',
      'upstream',
      '--strategy',
      'vivo:memory=true',
      '--apply',
      'in-place',
      '--apply',
      'evict',
      '--output',
      'json',
      '--plot',
      'p.svg',
      '--no-progress',
    );
    expect(command.strategies).toEqual([
      [
        'autopilot',
        {
          ...defaults('autopilot'),
          margin: 0.1,
          'cpu-half-life': 6 * 3_600_000,
        },
      ],
      ['upstream', defaults('upstream')],
      ['vivo', { ...defaults('vivo'), memory: true }],
    ]);
    expect(command.apply).toEqual(['in-place', 'evict']);
    expect(command.output).toBe('json');
    expect(command.plotFile).toBe('p.svg');
    expect(command.progress).toBe(false);
  });

  it('takes static by name with --capacity', () => {
    expect(
      replay('--capacity', 'c.csv', '--strategy', 'static').strategies,
    ).toEqual([['static', {}]]);
  });

  it('lists the strategies without needing --usage', () => {
    expect(parseCommandLine(['replay', '--list-strategies'])).toEqual({
      kind: 'list-strategies',
    });
  });

  it.each([
    [
      ['--strategy', 'tandm'],
      `unknown strategy 'tandm': choose one of ${STRATEGIES.map((d) => d.name).join(', ')}`,
    ],
    [
      ['--strategy', 'static'],
      'the static baseline needs --capacity <file.csv>',
    ],
    [
      ['--capacity', 'c.csv', '--strategy', 'static:margin=1'],
      'the static baseline takes no parameters',
    ],
    [
      ['--strategy', 'autopilot:margin=-1'],
      "strategy 'autopilot' parameter 'margin': '-1' is out of range: it must be from 0 to 10",
    ],
    [
      ['--strategy', 'vivo:memory'],
      "--strategy 'vivo:memory': parameters are key=value pairs separated by commas",
    ],
    [
      ['--strategy', 'vivo:=1'],
      "--strategy 'vivo:=1': parameters are key=value pairs separated by commas",
    ],
    [
      ['--strategy', 'upstream:margin=0.1,'],
      "--strategy 'upstream:margin=0.1,': parameters are key=value pairs separated by commas",
    ],
    [
      ['--strategy', 'upstream:cpu=1'],
      `strategy 'upstream' has no parameter 'cpu' (it has ${Object.keys(upstream.parameters).join(', ')})`,
    ],
    [
      ['--apply', 'resize'],
      "--apply must be one of evict, in-place, not 'resize'",
    ],
    [
      ['--apply', 'evict', '--apply', 'inplace'],
      "--apply must be one of evict, in-place, not 'inplace'",
    ],
    [['--output', 'csv'], "--output must be one of table, json, not 'csv'"],
  ])('rejects %j with a precise message', (argv, message) => {
    expect(() =>
      parseCommandLine(['replay', '--usage', 'u.csv', ...argv]),
    ).toThrow(new UsageError(message));
  });

  it('names the known strategies when one is unknown', () => {
    expect(() =>
      parseCommandLine(['replay', '--usage', 'u.csv', '--strategy', 'x']),
    ).toThrow(/choose one of upstream, autopilot, vivo\b/);
  });
});
