import { booleanFlag, flagGiven, flagGroup, stringFlag } from './flag-table.js';
import { parseNumberIn } from './flag-values.js';

/**
 * klog's flags, which upstream's manifests and chart pass to every VPA component, with
 * klog's defaults and help. Tandem logs JSON to stdout (verbosity from `--v` or LOG_LEVEL),
 * so these are accepted and ignored, with one warning naming them: a manifest that sets them
 * must start unchanged. Each one's setting says whether it was given.
 */
export const KLOG_NO_OP_FLAGS = flagGroup(
  'klog (accepted and ignored: Tandem logs JSON to stdout)',
  {
    logtostderr: booleanFlag(
      true,
      'log to standard error instead of files',
      flagGiven,
    ),
    alsologtostderr: booleanFlag(
      false,
      'log to standard error as well as files (no effect when -logtostderr=true)',
      flagGiven,
    ),
    // Upstream's components set it to info (klog's own default is ERROR).
    stderrthreshold: stringFlag(
      'info',
      'set the log level threshold for writing to standard error',
      flagGiven,
    ),
    log_dir: stringFlag(
      '',
      'If non-empty, write log files in this directory (no effect when -logtostderr=true)',
      flagGiven,
    ),
    log_file: stringFlag(
      '',
      'If non-empty, use this log file (no effect when -logtostderr=true)',
      flagGiven,
    ),
    log_file_max_size: stringFlag(
      '1800',
      'Defines the maximum size a log file can grow to (no effect when -logtostderr=true). Unit is megabytes. If the value is 0, the maximum file size is unlimited.',
      flagGiven,
    ),
    log_backtrace_at: stringFlag(
      ':0',
      'when logging hits line file:N, emit a stack trace',
      flagGiven,
    ),
    vmodule: stringFlag(
      '',
      'comma-separated list of pattern=N settings for file-filtered logging',
      flagGiven,
    ),
    skip_headers: booleanFlag(
      false,
      'If true, avoid header prefixes in the log messages',
      flagGiven,
    ),
    skip_log_headers: booleanFlag(
      false,
      'If true, avoid headers when opening log files (no effect when -logtostderr=true)',
      flagGiven,
    ),
    add_dir_header: booleanFlag(
      false,
      'If true, adds the file directory to the header of the log messages',
      flagGiven,
    ),
    one_output: booleanFlag(
      false,
      'If true, only write logs to their native severity level (vs also writing to each lower severity level; no effect when -logtostderr=true)',
      flagGiven,
    ),
  },
);

/** The klog flags as `parseArgs` options, without defaults: undefined means not given. */
export const KLOG_NO_OP_FLAG_OPTIONS = Object.fromEntries(
  Object.entries(KLOG_NO_OP_FLAGS).map(([name, flag]) => [
    name,
    { type: flag.kind },
  ]),
) as {
  [Name in keyof typeof KLOG_NO_OP_FLAGS]: {
    type: (typeof KLOG_NO_OP_FLAGS)[Name]['kind'];
  };
};

/** Boolean klog flags, for `goStyleArgs` (`--logtostderr=false` must parse). */
export const KLOG_BOOLEAN_FLAGS: readonly string[] = Object.entries(
  KLOG_NO_OP_FLAG_OPTIONS,
)
  .filter(([, option]) => option.type === 'boolean')
  .map(([name]) => name);

/** The klog flags present in parsed values, for the one warning that says they are ignored. */
export function ignoredKlogFlags(values: Record<string, unknown>): string[] {
  return Object.keys(KLOG_NO_OP_FLAG_OPTIONS).filter(
    (name) => values[name] !== undefined,
  );
}

/** klog's `--v`: 5 and more ask for debug logs. */
export function verbosityLogLevel(v: number): 'info' | 'debug' {
  return v >= 5 ? 'debug' : 'info';
}

/** klog's `--v` with a component's default; its setting is the log level it asks for. */
export function verbosityFlag(defaultValue: string) {
  return stringFlag(
    defaultValue,
    'set the log level verbosity (Tandem: 5 and more log at debug; LOG_LEVEL wins when set)',
    (raw, flag) => verbosityLogLevel(parseNumberIn(raw, flag, 0)),
  );
}
