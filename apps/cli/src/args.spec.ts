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
