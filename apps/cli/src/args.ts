import { parseArgs } from 'node:util';

export type OutputFormat = 'table' | 'json';

export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'recommend';
      usageFile: string;
      output: OutputFormat;
      progress: boolean;
    };

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const HELP_TEXT = `tandem: Vertical Pod Autoscaler maths from the command line

Usage:
  tandem recommend --usage <file.csv> [--output table|json] [--no-progress]
  tandem --help | --version

Commands:
  recommend   Replays recorded usage through the upstream-compatible VPA recommender
              (default settings) and prints target, lowerBound and upperBound per series.

Options for recommend:
  --usage <file>     CSV with the header timestamp_s,series_id,cpu_cores,memory_bytes;
                     one row is one metrics snapshot of one container; each series is
                     one container of one pod under one VPA.
  --output <format>  table (default, for people; quantities as kubectl prints them,
                     e.g. 587m, 250Mi) or json (quantity strings exactly as a VPA
                     status holds them).
  --no-progress      Do not draw the progress line on standard error.
`;

const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json'];

export function parseCommandLine(argv: readonly string[]): Command {
  const { values, positionals } = parseArgsOrExplain(argv);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [command, ...extra] = positionals;
  if (command === undefined) return { kind: 'help' };
  if (command !== 'recommend')
    throw new UsageError(`unknown command '${command}'`);
  if (extra.length > 0)
    throw new UsageError(`unexpected argument '${extra[0]}'`);
  if (values.usage === undefined)
    throw new UsageError('recommend needs --usage <file.csv>');
  const output = values.output ?? 'table';
  if (!isOutputFormat(output)) {
    throw new UsageError(
      `--output must be one of ${OUTPUT_FORMATS.join(', ')}, not '${output}'`,
    );
  }
  return {
    kind: 'recommend',
    usageFile: values.usage,
    output,
    progress: !values['no-progress'],
  };
}

function parseArgsOrExplain(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        usage: { type: 'string' },
        output: { type: 'string', short: 'o' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    // node:util reports unknown options with an error code; keep only its message.
    throw new UsageError((error as Error).message);
  }
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}
