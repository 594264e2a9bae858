import { parseArgs } from 'node:util';
import { APPLY_MODES, staticBaseline, type ApplyMode } from '@tandem/replay';
import {
  configureStrategy,
  STRATEGIES,
  strategyDefinition,
  type Strategy,
} from '@tandem/strategies';
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
  | ({ kind: 'synth' } & SyntheticUsageOptions)
  | { kind: 'list-strategies' }
  | {
      kind: 'replay';
      usageFile: string;
      capacityFile: string | undefined;
      /** In the order given; every registered one (and static, with a capacity file) when none is. */
      strategies: Strategy[];
      apply: ApplyMode[];
      output: OutputFormat;
      plotFile: string | undefined;
      progress: boolean;
    };

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const HELP_TEXT = `tandem: Vertical Pod Autoscaler maths from the command line

Usage:
  tandem recommend --usage <file.csv> [--output table|json] [--no-progress]
  tandem synth [--seed N] [--series N] [--days N] [--interval-seconds N] > usage.csv
  tandem replay --usage <file.csv> [--capacity <file.csv>] [--strategy NAME[:key=value,...] ...]
                [--apply evict|in-place ...] [--output table|json] [--plot <file.svg>] [--no-progress]
  tandem replay --list-strategies
  tandem --help | --version

Commands:
  recommend   Replays recorded usage through the upstream-compatible VPA recommender
              (default settings) and prints target, lowerBound and upperBound per series.
  synth       Writes a synthetic usage CSV on standard output, the same for the same
              seed: web services on daily and weekly cycles, bursty batch jobs, a memory
              leak, a memory step that outgrows its history, idle services.
  replay      Replays recorded usage through recommendation strategies as a live pod
              would live them (requests applied by the updater's rule, OOM kills when
              memory passes the limit) and scores slack, CPU shortfall, OOM kills and
              request changes after an 8-day warm-up (docs/replay.md).

Options for recommend:
  --usage <file>     CSV with the header timestamp_s,series_id,cpu_cores,memory_bytes;
                     one row is one metrics snapshot of one container; each series is
                     one container of one pod under one VPA.
  --output <format>  table (default, for people; quantities as kubectl prints them,
                     e.g. 587m, 250Mi) or json (quantity strings exactly as a VPA
                     status holds them).
  --no-progress      Do not draw the progress line on standard error.

Options for replay:
  --usage <file>       As for recommend; within a series, time must not go backwards.
  --capacity <file>    Declared sizes (request = limit) per series as change points, with
                       the header timestamp_s,series_id,cpu_cores,memory_bytes (Bitbrains'
                       capacity.csv is read as it is). Without it a pod starts at the
                       strategy's first recommendation, and there is no static baseline.
  --strategy <spec>    A strategy, with parameters as its tandem.dev/ annotations take
                       them: autopilot:margin=0.1,cpu-half-life=6h. Repeat to compare;
                       default: all, and static with --capacity.
  --apply <mode>       evict (default: upstream's updater) or in-place (every change of
                       10 % or more at once). Repeat for both.
  --plot <file.svg>    Also draw the slack-against-OOM curves over a margin sweep and one
                       series' requests over time.
  --list-strategies    Print the strategies with their parameters.

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
  if (command !== 'recommend' && command !== 'synth' && command !== 'replay')
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
  if (command === 'replay' && values['list-strategies'])
    return { kind: 'list-strategies' };
  if (values.usage === undefined)
    throw new UsageError(`${command} needs --usage <file.csv>`);
  const output = values.output ?? 'table';
  if (!isOutputFormat(output)) {
    throw new UsageError(
      `--output must be one of ${OUTPUT_FORMATS.join(', ')}, not '${output}'`,
    );
  }
  if (command === 'replay')
    return {
      kind: 'replay',
      usageFile: values.usage,
      capacityFile: values.capacity,
      strategies: replayStrategies(values.strategy, values.capacity),
      apply: applyModes(values.apply),
      output,
      plotFile: values.plot,
      progress: !values['no-progress'],
    };
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
        capacity: { type: 'string' },
        strategy: { type: 'string', multiple: true },
        apply: { type: 'string', multiple: true },
        plot: { type: 'string' },
        'list-strategies': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    // node:util reports unknown options with an error code; keep only its message.
    throw new UsageError((error as Error).message);
  }
}

/** The strategies `--strategy` names, configured, or the default set. */
function replayStrategies(
  specs: readonly string[] | undefined,
  capacityFile: string | undefined,
): Strategy[] {
  if (specs === undefined || specs.length === 0) {
    const all = STRATEGIES.map((definition) =>
      requireConfigured(configureStrategy(definition)),
    );
    return capacityFile === undefined ? all : [staticBaseline, ...all];
  }
  return specs.map((spec) => {
    const [name = '', parameterText] = splitOnce(spec, ':');
    if (name === staticBaseline.name) {
      if (capacityFile === undefined)
        throw new UsageError('the static baseline needs --capacity <file.csv>');
      if (parameterText !== undefined)
        throw new UsageError('the static baseline takes no parameters');
      return staticBaseline;
    }
    const found = strategyDefinition(name);
    if ('error' in found) throw new UsageError(found.error);
    return requireConfigured(
      configureStrategy(
        found.definition,
        strategyParameters(spec, parameterText),
      ),
    );
  });
}

function strategyParameters(
  spec: string,
  text: string | undefined,
): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (text === undefined) return parameters;
  for (const pair of text.split(',')) {
    const [key, value] = splitOnce(pair, '=');
    if (key === undefined || key === '' || value === undefined)
      throw new UsageError(
        `--strategy '${spec}': parameters are key=value pairs separated by commas`,
      );
    parameters[key] = value;
  }
  return parameters;
}

function requireConfigured(
  result: { strategy: Strategy } | { error: string },
): Strategy {
  if ('error' in result) throw new UsageError(result.error);
  return result.strategy;
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function applyModes(modes: readonly string[] | undefined): ApplyMode[] {
  if (modes === undefined || modes.length === 0) return ['evict'];
  return modes.map((mode) => {
    const known = APPLY_MODES.find((candidate) => candidate === mode);
    if (known === undefined)
      throw new UsageError(
        `--apply must be one of ${APPLY_MODES.join(', ')}, not '${mode}'`,
      );
    return known;
  });
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
