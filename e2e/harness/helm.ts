import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The build script that puts Helm, built from its Go module, in the cache. */
export const HELM_BUILD_SCRIPT = join(
  import.meta.dirname,
  '..',
  'helm',
  'build.sh',
);

/**
 * The helm binary: TANDEM_HELM when set, else the one e2e/helm/build.sh built into the
 * cache. Never builds (minutes on 2 cores, far past a test's timeout): a missing binary is
 * an error that names the build command.
 */
export function helmBinary(): string {
  const fromEnv = process.env['TANDEM_HELM'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    return execFileSync(
      'bash',
      [HELM_BUILD_SCRIPT, '--print-bin', '--cached-only'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
  } catch (error) {
    throw new Error(
      `helm is not built: run \`bash e2e/helm/build.sh\` first (.ci/run does, before npm test), or set TANDEM_HELM to a helm binary. ${(error as { stderr?: string }).stderr ?? ''}`.trim(),
    );
  }
}

/**
 * Runs a command and returns its stdout; `input` goes to its stdin. A failure's error
 * carries the command's stderr, which is where helm and kubectl say what was wrong.
 */
export async function runCommand(
  command: string,
  args: string[],
  input?: string,
): Promise<string> {
  const pending = run(command, args, { maxBuffer: 64 * 1024 * 1024 });
  pending.child.stdin?.end(input ?? '');
  try {
    return (await pending).stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed: ${stderr ?? (error as Error).message}`,
    );
  }
}
