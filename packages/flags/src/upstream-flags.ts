// Upstream VPA 1.8's flags and what each Tandem app makes of them, found by parsing: the
// table in docs/upstream-flags.md is generated from the apps' own parsers, so it says what
// they do, not what someone remembered to write down.
import { isDeepStrictEqual } from 'node:util';
import { cell, markdownTable } from './flag-table.js';

/** One flag of an upstream component (its `config.go`, `common/flags.go`, client-go's). */
export interface UpstreamFlag {
  /** As upstream spells it, without dashes. */
  readonly name: string;
  /** Upstream's default as a command line writes it ('' for none). */
  readonly upstreamDefault: string;
  /** The value tried instead of the default: a feature gate turned on (`PerVPAConfig=true`). */
  readonly probe?: string;
  /** Tandem's default, where it differs from upstream's (checked against the parser). */
  readonly tandemDefault?: string;
  /** Why Tandem takes it as it does, where the parser's result alone does not say. */
  readonly note?: string;
}

export type UpstreamAnswer =
  | { readonly kind: 'same-default' }
  | { readonly kind: 'different-default'; readonly tandemDefault: string }
  | { readonly kind: 'refused'; readonly reason: string };

export interface UpstreamFlagRow {
  readonly flag: UpstreamFlag;
  readonly answer: UpstreamAnswer;
}

/** An app's flag parser: settings for a command line, or a throw naming the flag. */
export type FlagsParser = (argv: readonly string[]) => unknown;

/** parseArgs' words for a flag nobody declared: refused, but without a reason. */
const UNKNOWN_OPTION = /Unknown option/;

/**
 * Each upstream flag as `parse` takes it: refused when `--name=<probe or default>` throws
 * (the reason is the app's own message), else accepted, with upstream's default when giving
 * that default parses to the same settings as giving nothing. Returns the rows and the
 * problems: a refusal with no reason of its own (an undeclared flag), a default that differs
 * without `tandemDefault`, or a `tandemDefault` the parser does not bear out.
 */
export function upstreamFlagAnswers(
  flags: readonly UpstreamFlag[],
  parse: FlagsParser,
): { rows: UpstreamFlagRow[]; problems: string[] } {
  const problems: string[] = [];
  const defaults = parse([]);
  const parsed = (value: string, name: string): unknown =>
    parse([`--${name}=${value}`]);
  const rows = flags.map((flag): UpstreamFlagRow => {
    const { name } = flag;
    let given;
    try {
      given = parsed(flag.probe ?? flag.upstreamDefault, name);
    } catch (error) {
      const reason = (error as Error).message;
      if (UNKNOWN_OPTION.test(reason))
        problems.push(
          `--${name} is refused as an unknown option: refuse it by name, with a reason`,
        );
      return { flag, answer: { kind: 'refused', reason } };
    }
    if (flag.tandemDefault !== undefined) {
      if (!isDeepStrictEqual(parsed(flag.tandemDefault, name), defaults))
        problems.push(
          `--${name}: Tandem's default is not ${flag.tandemDefault}`,
        );
      return {
        flag,
        answer: {
          kind: 'different-default',
          tandemDefault: flag.tandemDefault,
        },
      };
    }
    if (
      flag.probe === undefined &&
      flag.note === undefined &&
      !isDeepStrictEqual(given, defaults)
    )
      problems.push(
        `--${name}=${flag.upstreamDefault} (upstream's default) is not Tandem's default: give tandemDefault or a note`,
      );
    return { flag, answer: { kind: 'same-default' } };
  });
  return { rows, problems };
}

function code(text: string): string {
  return text === '' ? '`""`' : `\`${text.replaceAll('|', '\\|')}\``;
}

/** The rows as a markdown table: flag, upstream default, Tandem's answer, why. */
export function upstreamFlagMarkdown(rows: readonly UpstreamFlagRow[]): string {
  return markdownTable([
    ['upstream flag', 'upstream default', 'Tandem', 'why'],
    ...rows.map(({ flag, answer }) => {
      const probe = flag.probe === undefined ? '' : `=${flag.probe}`;
      const [what, why] =
        answer.kind === 'refused'
          ? ['refused', answer.reason]
          : answer.kind === 'different-default'
            ? [
                `accepted, default ${code(answer.tandemDefault)}`,
                flag.note ?? '',
              ]
            : ['accepted', flag.note ?? ''];
      return [
        `\`--${flag.name}${probe}\``,
        code(flag.upstreamDefault),
        what,
        cell(why.replaceAll(/\s+/g, ' ')),
      ];
    }),
  ]).join('\n');
}

const COMMON_FLAGS: readonly UpstreamFlag[] = [
  {
    name: 'kubeconfig',
    upstreamDefault: '',
    note: 'else KUBECONFIG, in-cluster, ~/.kube/config',
  },
  { name: 'kube-api-qps', upstreamDefault: '50' },
  { name: 'kube-api-burst', upstreamDefault: '100' },
  {
    name: 'profiling',
    upstreamDefault: 'false',
    note: 'accepted and ignored: Tandem has no pprof endpoint',
  },
  { name: 'vpa-object-namespace', upstreamDefault: '' },
  { name: 'ignored-vpa-object-namespaces', upstreamDefault: '' },
  {
    name: 'v',
    upstreamDefault: '4',
    note: 'from 5 up, debug logs; the other klog flags are accepted and ignored with one warning',
  },
];

/**
 * `common/flags.go`'s flags, which every component takes, with the app's defaults where
 * they differ from upstream's (`tandemDefaults`, by flag name).
 */
export function upstreamCommonFlags(
  tandemDefaults: Readonly<Record<string, string>> = {},
): UpstreamFlag[] {
  return COMMON_FLAGS.map((flag) => {
    const tandemDefault = tandemDefaults[flag.name];
    return tandemDefault === undefined ? flag : { ...flag, tandemDefault };
  });
}

/** A component's own flags as `[name, upstream default]` pairs. */
export function upstreamFlags(
  pairs: readonly (readonly [string, string])[],
): UpstreamFlag[] {
  return pairs.map(([name, upstreamDefault]) => ({ name, upstreamDefault }));
}

/** client-go's `BindLeaderElectionFlags`, with the component's lease name. */
export function upstreamLeaderElectionFlags(lease: string): UpstreamFlag[] {
  return [
    { name: 'leader-elect', upstreamDefault: 'false' },
    { name: 'leader-elect-lease-duration', upstreamDefault: '15s' },
    { name: 'leader-elect-renew-deadline', upstreamDefault: '10s' },
    { name: 'leader-elect-retry-period', upstreamDefault: '2s' },
    { name: 'leader-elect-resource-lock', upstreamDefault: 'leases' },
    { name: 'leader-elect-resource-name', upstreamDefault: lease },
    { name: 'leader-elect-resource-namespace', upstreamDefault: 'kube-system' },
  ];
}

/** `pkg/features`: the gates, each tried turned on (all alpha, off by default). */
export const UPSTREAM_FEATURE_GATE_PROBES: readonly UpstreamFlag[] = [
  'CPUStartupBoost',
  'InPlace',
  'PerVPAConfig',
].map((gate) => ({
  name: 'feature-gates',
  upstreamDefault: '',
  probe: `${gate}=true`,
}));

/**
 * `doc` with the text between `<!-- upstream-flags:<app>:begin -->` and its `end` marker
 * replaced by `body`; throws when the markers are missing.
 */
export function withUpstreamFlagSection(
  doc: string,
  app: string,
  body: string,
): string {
  const begin = `<!-- upstream-flags:${app}:begin -->`;
  const end = `<!-- upstream-flags:${app}:end -->`;
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from === -1 || to < from)
    throw new Error(`the document lacks ${begin} … ${end}`);
  return `${doc.slice(0, from + begin.length)}\n\n${body}\n\n${doc.slice(to)}`;
}
