import {
  booleanFlag,
  FlagError,
  flagGiven,
  flagGroup,
  flagHelp,
  flagMarkdown,
  helpRequested,
  KLOG_NO_OP_FLAG_OPTIONS,
  leaderElectionFlagOptions,
  parseDuration,
  parseFlagTable,
  stringFlag,
} from './index.js';

const TABLE = {
  ...flagGroup('Timing', {
    interval: stringFlag('1m', 'How often it runs', parseDuration),
    name: stringFlag('', 'Its name'),
  }),
  ...flagGroup('Switches', {
    'dry-run': booleanFlag(true, 'Change nothing | log only'),
    quiet: booleanFlag(false, 'Accepted and ignored', flagGiven),
  }),
};

describe('parseFlagTable', () => {
  it('parses each default when nothing is given', () => {
    expect(parseFlagTable(TABLE, [])).toEqual({
      interval: 60_000,
      name: '',
      'dry-run': true,
      quiet: false,
    });
  });

  it('reads arguments as Go does and tells given flags from defaults', () => {
    expect(
      parseFlagTable(TABLE, ['-interval=5s', '--dry-run=false', '--quiet']),
    ).toEqual({ interval: 5000, name: '', 'dry-run': false, quiet: true });
    expect(parseFlagTable(TABLE, ['--quiet=false']).quiet).toBe(true);
  });

  it.each([
    [['--interval=soon'], /^--interval: 'soon' is not a duration/],
    [['--dry-run=maybe'], /^--dry-run must be true or false, got 'maybe'$/],
    [['--nope'], /nope/],
  ])('refuses %j with a FlagError', (argv, message) => {
    expect(() => parseFlagTable(TABLE, argv)).toThrow(FlagError);
    expect(() => parseFlagTable(TABLE, argv)).toThrow(message);
  });
});

describe('helpRequested', () => {
  it.each([
    [['-h'], true],
    [['--x=1', '--help'], true],
    [['-help'], true],
    [['--', '--help'], false],
    [['--helpful'], false],
  ])('%j: %s', (argv, expected) => {
    expect(helpRequested(argv)).toBe(expected);
  });
});

describe('the flag help', () => {
  it('lists each group and each flag with its default, help indented', () => {
    expect(flagHelp(TABLE)).toBe(
      [
        'Timing:',
        '  --interval=1m',
        '      How often it runs',
        '  --name=""',
        '      Its name',
        '',
        'Switches:',
        '  --dry-run=true',
        '      Change nothing | log only',
        '  --quiet=false',
        '      Accepted and ignored',
        '',
      ].join('\n'),
    );
  });

  it('wraps long help at 78 columns', () => {
    const help = flagHelp({ x: stringFlag('', 'word '.repeat(40).trim()) });
    const lines = help.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(78);
  });

  it('renders Markdown tables laid out as prettier lays them out', () => {
    expect(
      flagMarkdown({
        ...TABLE,
        ...flagGroup('Metrics', {
          quality: booleanFlag(false, 'Record vpa_quality_* metrics (a * b)'),
        }),
      }),
    ).toBe(
      [
        '**Timing**',
        '',
        '| flag         | default | help              |',
        '| ------------ | ------- | ----------------- |',
        '| `--interval` | `1m`    | How often it runs |',
        '| `--name`     | `""`    | Its name          |',
        '',
        '**Switches**',
        '',
        '| flag        | default | help                       |',
        '| ----------- | ------- | -------------------------- |',
        '| `--dry-run` | `true`  | Change nothing \\| log only |',
        '| `--quiet`   | `false` | Accepted and ignored       |',
        '',
        '**Metrics**',
        '',
        '| flag        | default | help                                    |',
        '| ----------- | ------- | --------------------------------------- |',
        '| `--quality` | `false` | Record `vpa_quality_*` metrics (a \\* b) |',
        '',
      ].join('\n'),
    );
  });
});

describe("the other apps' parseArgs options", () => {
  it('are as before the flag table', () => {
    expect(leaderElectionFlagOptions('vpa-updater')).toEqual({
      'leader-elect': { type: 'boolean', default: false },
      'leader-elect-resource-name': { type: 'string', default: 'vpa-updater' },
      'leader-elect-resource-namespace': {
        type: 'string',
        default: 'kube-system',
      },
      'leader-elect-lease-duration': { type: 'string', default: '15s' },
      'leader-elect-renew-deadline': { type: 'string', default: '10s' },
      'leader-elect-retry-period': { type: 'string', default: '2s' },
      'leader-elect-resource-lock': { type: 'string', default: 'leases' },
    });
    expect(KLOG_NO_OP_FLAG_OPTIONS).toEqual({
      logtostderr: { type: 'boolean' },
      alsologtostderr: { type: 'boolean' },
      stderrthreshold: { type: 'string' },
      log_dir: { type: 'string' },
      log_file: { type: 'string' },
      log_file_max_size: { type: 'string' },
      log_backtrace_at: { type: 'string' },
      vmodule: { type: 'string' },
      skip_headers: { type: 'boolean' },
      skip_log_headers: { type: 'boolean' },
      add_dir_header: { type: 'boolean' },
      one_output: { type: 'boolean' },
    });
  });
});
