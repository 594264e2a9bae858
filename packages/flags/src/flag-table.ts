// A flag table: each flag's name, kind, default, help and parser in one entry, from which
// the `parseArgs` options, the Go-style boolean set, `--help` and the README's table derive.
import { parseArgs } from 'node:util';
import { FlagError, goStyleArgs } from './flag-values.js';

export type FlagKind = 'string' | 'boolean';

/**
 * Turns a flag's raw value into its setting, or throws a FlagError naming `--${flag}`. `raw`
 * is the value given, else the default (a boolean as `true`/`false`); `given` tells the two
 * apart, for flags that are accepted and ignored, refused, or unset unless given.
 */
export type FlagParser<Value> = (
  raw: string,
  flag: string,
  given: boolean,
) => Value;

export interface FlagDefinition<
  Value = unknown,
  Kind extends FlagKind = FlagKind,
> {
  /** `string` takes a value; `boolean` is `--name`, `--name=true` or `--name=false`. */
  kind: Kind;
  /** The default as upstream writes it on a command line (`1m`, `false`; '' for none). */
  default: string;
  /** What `--help` and the README say: upstream's wording for upstream's flags. */
  help: string;
  parse: FlagParser<Value>;
  /** The heading it is listed under (see `flagGroup`). */
  group?: string;
}

export type FlagTable = Readonly<Record<string, FlagDefinition>>;

/** The settings a table parses to: each flag's parser's result, under the flag's name. */
export type FlagSettings<Table extends FlagTable> = {
  -readonly [Name in keyof Table]: ReturnType<Table[Name]['parse']>;
};

const asGiven: FlagParser<string> = (raw) => raw;

/** A parser whose setting is whether the flag was given (for flags accepted and ignored). */
export const flagGiven: FlagParser<boolean> = (_raw, _flag, given) => given;

/** A flag that takes a value; without a parser the setting is the text itself. */
export function stringFlag(
  defaultValue: string,
  help: string,
): FlagDefinition<string, 'string'>;
export function stringFlag<Value>(
  defaultValue: string,
  help: string,
  parse: FlagParser<Value>,
): FlagDefinition<Value, 'string'>;
export function stringFlag(
  defaultValue: string,
  help: string,
  parse: FlagParser<unknown> = asGiven,
): FlagDefinition<unknown, 'string'> {
  return { kind: 'string', default: defaultValue, help, parse };
}

/** A Go-style boolean; without a parser the setting is its value. */
export function booleanFlag(
  defaultValue: boolean,
  help: string,
): FlagDefinition<boolean, 'boolean'>;
export function booleanFlag<Value>(
  defaultValue: boolean,
  help: string,
  parse: FlagParser<Value>,
): FlagDefinition<Value, 'boolean'>;
export function booleanFlag(
  defaultValue: boolean,
  help: string,
  parse: FlagParser<unknown> = (raw) => raw === 'true',
): FlagDefinition<unknown, 'boolean'> {
  return { kind: 'boolean', default: String(defaultValue), help, parse };
}

/** The same flags, listed under `group` in `--help` and the README. */
export function flagGroup<Table extends FlagTable>(
  group: string,
  flags: Table,
): Table {
  return Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => [name, { ...flag, group }]),
  ) as unknown as Table;
}

/** `parseArgs` options for a table's flags, with their defaults as `parseArgs` takes them. */
export function parseArgsOptions<Table extends FlagTable>(
  table: Table,
): {
  [Name in keyof Table]: {
    type: Table[Name]['kind'];
    default: Table[Name]['kind'] extends 'boolean' ? boolean : string;
  };
} {
  return Object.fromEntries(
    Object.entries(table).map(([name, flag]) => [
      name,
      {
        type: flag.kind,
        default:
          flag.kind === 'boolean' ? flag.default === 'true' : flag.default,
      },
    ]),
  ) as never;
}

/** The names of a table's boolean flags, for `goStyleArgs`. */
export function booleanFlags(table: FlagTable): Set<string> {
  return new Set(
    Object.keys(table).filter((name) => table[name]?.kind === 'boolean'),
  );
}

/**
 * Each flag's parser applied to its value in `values` (as `parseArgs` returns them;
 * undefined means not given, so the default is parsed), in the table's order.
 */
export function parseFlagValues<Table extends FlagTable>(
  table: Table,
  values: Readonly<Record<string, string | boolean | undefined>>,
): FlagSettings<Table> {
  return Object.fromEntries(
    Object.entries(table).map(([name, flag]) => {
      const value = values[name];
      const raw = value === undefined ? flag.default : String(value);
      return [name, flag.parse(raw, name, value !== undefined)];
    }),
  ) as FlagSettings<Table>;
}

/** Arguments as Go reads them (`-name`, `--name=false`) against a table, parsed. */
export function parseFlagTable<Table extends FlagTable>(
  table: Table,
  argv: readonly string[],
): FlagSettings<Table> {
  const args = goStyleArgs(argv, booleanFlags(table));
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowNegative: true,
      options: Object.fromEntries(
        Object.entries(table).map(([name, flag]) => [
          name,
          { type: flag.kind },
        ]),
      ),
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  return parseFlagValues(table, values);
}

/** Thrown for `-h`/`--help`: the caller prints `help` to stdout and exits 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
  constructor(readonly help: string) {
    super('help requested');
  }
}

/** `-h`, `-help` or `--help` before any `--`, as Go's flag package takes them. */
export function helpRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) =>
    ['-h', '--h', '-help', '--help'].includes(arg),
  );
}

function groups(table: FlagTable): Map<string, [string, FlagDefinition][]> {
  const byGroup = new Map<string, [string, FlagDefinition][]>();
  for (const [name, flag] of Object.entries(table)) {
    const group = flag.group ?? 'Flags';
    byGroup.set(group, [...(byGroup.get(group) ?? []), [name, flag]]);
  }
  return byGroup;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** `--help`'s list: a heading a group, then each flag as `--name=default` and its help. */
export function flagHelp(table: FlagTable): string {
  const blocks = [...groups(table)].map(([group, flags]) =>
    [
      `${group}:`,
      ...flags.flatMap(([name, flag]) => [
        `  --${name}=${flag.default === '' ? '""' : flag.default}`,
        ...wrap(flag.help, 72).map((line) => `      ${line}`),
      ]),
    ].join('\n'),
  );
  return `${blocks.join('\n\n')}\n`;
}

/** Rows (the first one the heading) as a markdown table padded as prettier lays it out. */
export function markdownTable(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(3, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [
    line(head),
    line(widths.map((width) => '-'.repeat(width))),
    ...body.map(line),
  ];
}

/**
 * Help as a table cell: words with `_` or `*` (identifiers, `vpa_quality_*`) in code spans and
 * a lone `*` escaped, so that neither reads as emphasis; `|` escaped.
 */
export function cell(text: string): string {
  return text
    .split(' ')
    .map((word) => {
      if (word === '*') return '\\*';
      const [, before = '', core = '', after = ''] =
        /^([('"]*)(.*?)([.,;:)'"]*)$/.exec(word) ?? [];
      return /[_*]/.test(core) ? `${before}\`${core}\`${after}` : word;
    })
    .join(' ')
    .replaceAll('|', '\\|');
}

/**
 * The README's flag tables: a bold heading and a table (flag, default, help) a group, as
 * prettier lays tables out (so the README stays formatted). ASCII help keeps the columns right.
 */
export function flagMarkdown(table: FlagTable): string {
  const blocks = [...groups(table)].map(([group, flags]) =>
    [
      `**${group}**`,
      '',
      ...markdownTable([
        ['flag', 'default', 'help'],
        ...flags.map(([name, flag]) => [
          `\`--${name}\``,
          flag.default === ''
            ? '`""`'
            : `\`${flag.default.replaceAll('|', '\\|')}\``,
          cell(flag.help),
        ]),
      ]),
    ].join('\n'),
  );
  return `${blocks.join('\n\n')}\n`;
}
