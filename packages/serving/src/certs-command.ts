import { parseArgs } from 'node:util';
import { FlagError } from '@tandem/flags';
import { loadKubeConnection } from '@tandem/kube';
import { pino } from 'pino';
import {
  certificateFlagOptions,
  parseCertificateFlags,
  type CertificateManagement,
} from './certificate-flags.js';
import { certificateRotation } from './certificate-rotation.js';
import { kubeSecretStore, memorySecretStore } from './certificate-store.js';

/**
 * `<program> certs`: one pass of the in-process certificate rotation, for local use. With
 * `--certs-secret` it reads (or creates) the installation's CAs in that Secret, as a
 * replica does; without, it makes a CA that lives only for this run. Either way it writes
 * `caCert.pem`, `serverCert.pem` and `serverKey.pem` into `--certs-dir`.
 */
export async function certsCommand(
  argv: readonly string[],
  { program, defaultService }: { program: string; defaultService: string },
): Promise<number> {
  let flags: { management: CertificateManagement; kubeconfig?: string };
  try {
    flags = parseCertsFlags(argv, defaultService);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${program} certs: ${error.message}\n`);
    return 2;
  }
  const { management } = flags;
  const store =
    management.secret === undefined
      ? memorySecretStore()
      : kubeSecretStore(
          await loadKubeConnection({ kubeconfigPath: flags.kubeconfig }),
          management.secret,
        );
  const rotation = certificateRotation({
    store,
    dir: management.dir,
    identity: management.identity,
    lifetimes: management.lifetimes,
    logger: pino(),
  });
  if (!(await rotation.check())) return 1;
  process.stdout.write(
    `${JSON.stringify({ msg: 'certificates written', ...rotation.files })}\n`,
  );
  return 0;
}

function parseCertsFlags(
  argv: readonly string[],
  defaultService: string,
): { management: CertificateManagement; kubeconfig?: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        ...certificateFlagOptions(defaultService),
        kubeconfig: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  return {
    management: parseCertificateFlags(values),
    kubeconfig: values.kubeconfig,
  };
}
