/**
 * klog's flags, which upstream's manifests and chart pass to every VPA component. Tandem
 * logs JSON to stdout (verbosity from `--v` or LOG_LEVEL), so these are accepted and ignored,
 * with one warning naming them: a manifest that sets them must start unchanged.
 */
export const KLOG_NO_OP_FLAG_OPTIONS = {
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
} as const;

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
