import { FlagError } from '@tandem/flags';
import { startTelemetry, type Telemetry } from '@tandem/telemetry';
import { certsCommand } from './certs-command.js';

/** What every serving app's flags carry for the start-up below. */
export interface CommonFlags {
  verbosityLogLevel: 'info' | 'debug';
  ignoredFlags: string[];
}

/**
 * The start of an app that serves HTTPS to the API server (the webhook, the metrics
 * adapter): `certs` as the first argument runs the certificate bootstrap; otherwise the app
 * starts as `startFlaggedApp` starts it. Resolves with an exit code when the app should not
 * go on.
 */
export async function startServingApp<Flags extends CommonFlags>(
  argv: readonly string[],
  version: string,
  options: {
    program: string;
    /** The Service whose DNS names `certs` puts in the serving certificate. */
    defaultService: string;
    parseFlags: (argv: readonly string[]) => Flags;
  },
): Promise<number | { flags: Flags; telemetry: Telemetry }> {
  if (argv[0] === 'certs')
    return certsCommand(argv.slice(1), {
      program: options.program,
      defaultService: options.defaultService,
    });
  return startFlaggedApp(argv, version, options);
}

/**
 * The start of an app: the flags are parsed (a bad one is a message on stderr and exit
 * code 2, not a stack trace), telemetry starts, and klog flags given for upstream's
 * manifests get their one warning. Resolves with an exit code when the app should not go on.
 */
export function startFlaggedApp<Flags extends CommonFlags>(
  argv: readonly string[],
  version: string,
  options: {
    program: string;
    parseFlags: (argv: readonly string[]) => Flags;
  },
): number | { flags: Flags; telemetry: Telemetry } {
  const { program } = options;
  let flags: Flags;
  try {
    flags = options.parseFlags(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${program}: ${error.message}\n`);
    return 2;
  }
  const telemetry = startTelemetry({
    serviceName: program,
    serviceVersion: version,
    // LOG_LEVEL wins; otherwise upstream's `--v` decides.
    env: { LOG_LEVEL: flags.verbosityLogLevel, ...process.env },
  });
  if (flags.ignoredFlags.length > 0)
    telemetry.logger.warn(
      { flags: flags.ignoredFlags },
      'klog flags are accepted and ignored: logs are JSON on stdout',
    );
  return { flags, telemetry };
}
