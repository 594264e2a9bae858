import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { kubectl } from './kustomize.ts';

const CRDS_SCRIPT = resolve(
  import.meta.dirname,
  '..',
  'cert-manager',
  'crds.sh',
);

/**
 * The directory of cert-manager's CRDs, fetched from its Go module by
 * e2e/cert-manager/crds.sh into the cache outside the repository (a no-op once cached).
 * The script's progress goes to this process's stderr, so a first download says what it
 * does; its last stdout line is the directory.
 */
export async function certManagerCrdDirectory(): Promise<string> {
  const script = spawn('bash', [CRDS_SCRIPT], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  script.stdout.setEncoding('utf8');
  script.stdout.on('data', (chunk: string) => (stdout += chunk));
  const status = await new Promise<number | null>((done, failed) => {
    script.once('error', failed);
    script.once('close', done);
  });
  const directory = stdout.trim().split('\n').at(-1);
  if (status !== 0 || directory === undefined || directory === '')
    throw new Error(
      `${CRDS_SCRIPT} exited with ${status ?? 'a signal'} (its log is above)`,
    );
  return directory;
}

/**
 * Installs cert-manager's CRDs for real and waits until they are Established. Server-side
 * apply: the biggest CRDs exceed the size of client-side apply's last-applied annotation.
 * CRDs only, no controller, so other suites see nothing but six more API types.
 */
export async function installCertManagerCrds(): Promise<void> {
  const directory = await certManagerCrdDirectory();
  await kubectl(
    'apply',
    '--server-side',
    '--force-conflicts',
    '--field-manager=tandem-e2e',
    '-f',
    directory,
  );
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    '-f',
    directory,
  );
}
