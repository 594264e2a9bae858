import type { KubeConnection } from '@tandem/kube';
import type { Registry } from '@tandem/telemetry';
import type { Logger } from 'pino';
import type { CertificateManagement } from './certificate-flags.js';
import {
  startCertificateRotation,
  type ServedFiles,
} from './certificate-rotation.js';
import { kubeSecretStore } from './certificate-store.js';

/**
 * The files an app serves from. With `--certs-secret` the process keeps them current
 * itself: this resolves once the first ones are written, so the server and any caBundle
 * written from the bundle file start from them; `stop` ends the renewals. Without it,
 * the files given (by flags, e.g. from cert-manager's Secret) are served as they are.
 */
export async function servingFiles<
  Given extends Omit<ServedFiles, 'caBundleFile'> & { caBundleFile?: string },
>(
  management: CertificateManagement,
  given: Given,
  context: { connection: KubeConnection; logger: Logger; registry?: Registry },
): Promise<{ files: Given | ServedFiles; stop(): void }> {
  if (management.secret === undefined)
    return { files: given, stop: () => undefined };
  context.logger.info(
    { secret: management.secret, dir: management.dir },
    'managing the serving certificates in-process',
  );
  return startCertificateRotation({
    store: kubeSecretStore(context.connection, management.secret),
    dir: management.dir,
    identity: management.identity,
    lifetimes: management.lifetimes,
    logger: context.logger,
    registry: context.registry,
  });
}
