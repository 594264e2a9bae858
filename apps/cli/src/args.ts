import { parseArgs } from 'node:util';
import type { SyntheticUsageOptions } from './synthetic-usage.js';

export type OutputFormat = 'table' | 'json';

export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'recommend';
      usageFile: string;
      output: OutputFormat;
      progress: boolean;
    }
  | ({ kind: 'synth' } & SyntheticUsageOptions);

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const HELP_TEXT = `tandem: Vertical Pod Autoscaler maths from the command line

Usage:
  tandem recommend --usage <file.csv> [--output table|json] [--no-progress]
  tandem synth [--seed N] [--series N] [--days N] [--interval-seconds N] > usage.csv
  tandem --help | --version

Commands:
  recommend   Replays recorded usage through the upstream-compatible VPA recommender
              (default settings) and prints target, lowerBound and upperBound per series.
  synth       Writes a synthetic usage CSV on standard output, the same for the same
              seed: web services on daily and weekly cycles, bursty batch jobs, a memory
              leak, a memory step that outgrows its history, idle services.

Options for recommend:
  --usage <file>     CSV with the header timestamp_s,series_id,cpu_cores,memory_bytes;
                     one row is one metrics snapshot of one container; each series is
                     one container of one pod under one VPA.
  --output <format>  table (default, for people; quantities as kubectl prints them,
                     e.g. 587m, 250Mi) or json (quantity strings exactly as a VPA
                     status holds them).
  --no-progress      Do not draw the progress line on standard error.

Options for synth:
  --seed <n>              Seed of the generator (default 1).
  --series <n>            Series to write, the shapes taken in turn (default 10).
  --days <n>              Length of the trace (default 14; at most 366).
  --interval-seconds <n>  Time between two samples of a series (default 60).
`;

const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json'];

export function parseCommandLine(argv: readonly string[]): Command {
  const { values, positionals } = parseArgsOrExplain(argv);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [command, ...extra] = positionals;
  if (command === undefined) return { kind: 'help' };
  if (command !== 'recommend' && command !== 'synth')
    throw new UsageError(`unknown command '${command}'`);
  if (extra.length > 0)
    throw new UsageError(`unexpected argument '${extra[0]}'`);
  if (command === 'synth')
    return {
      kind: 'synth',
      seed: wholeNumber(values.seed, '--seed', 1, 0, 2 ** 31),
      series: wholeNumber(values.series, '--series', 10, 1, 100_000),
      days: wholeNumber(values.days, '--days', 14, 1, 366),
      intervalSeconds: wholeNumber(
        values['interval-seconds'],
        '--interval-seconds',
        60,
        1,
        86_400,
      ),
    };
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
        seed: { type: 'string' },
        series: { type: 'string' },
        days: { type: 'string' },
        'interval-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    // node:util reports unknown options with an error code; keep only its message.
    throw new UsageError((error as Error).message);
  }
}

/** A whole number in [min, max], written in decimal digits, or `fallback` when absent. */
function wholeNumber(
  text: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max))
    throw new UsageError(
      `${flag} must be a whole number from ${min} to ${max}, not '${text}'`,
    );
  return value;
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}
