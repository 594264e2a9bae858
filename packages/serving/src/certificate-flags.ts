import {
  FlagError,
  flagGroup,
  parseArgsOptions,
  parseDuration,
  parseFlagValues,
  stringFlag,
} from '@tandem/flags';
import {
  lifetimesProblem,
  type CertificateLifetimes,
} from './certificate-plan.js';
import type { ServingIdentity } from './certificate-rotation.js';
import type { SecretReference } from './certificate-store.js';

/** In-process certificates (`--certs-secret` given): where, for whom, for how long. */
export interface CertificateManagement {
  /** `--certs-secret`: the Secret holding the installation's CAs. */
  readonly secret: SecretReference | undefined;
  readonly dir: string;
  readonly identity: ServingIdentity;
  readonly lifetimes: CertificateLifetimes;
}

const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function secretReference(
  raw: string,
  flag: string,
): SecretReference | undefined {
  if (raw === '') return undefined;
  const [namespace, name, ...rest] = raw.split('/');
  if (!namespace || !name || rest.length > 0)
    throw new FlagError(`--${flag} must be namespace/name, got '${raw}'`);
  return { namespace, name };
}

/** The certificate flags the webhook, the adapter and their `certs` command share. */
export function certificateFlagTable(defaultService: string) {
  return flagGroup('Certificates', {
    'certs-secret': stringFlag(
      '',
      'namespace/name of the Secret holding the CAs shared by every replica. When set, the app makes and renews its serving certificate itself and writes caCert.pem (the CA bundle), serverCert.pem and serverKey.pem into --certs-dir before it serves; the certificate and CA file flags then name those files. When empty, the files given are read as they are (e.g. mounted by cert-manager).',
      secretReference,
    ),
    'certs-dir': stringFlag(
      '/etc/tls-certs',
      'Where the certificate files are written (with --certs-secret).',
    ),
    'certs-service': stringFlag(
      defaultService,
      'The Service whose DNS names ($NAMESPACE or $POD_NAMESPACE, else kube-system) the serving certificate carries.',
    ),
    'certs-dns-names': stringFlag(
      '',
      'More DNS names for the serving certificate, comma-separated.',
      list,
    ),
    'certs-ip-addresses': stringFlag(
      '',
      'IP addresses for the serving certificate, comma-separated (127.0.0.1 for a webhook registered by URL on loopback).',
      list,
    ),
    'ca-validity': stringFlag(
      '8760h',
      'Lifetime of each CA; a new one is staged when a third is left.',
      parseDuration,
    ),
    'cert-validity': stringFlag(
      '720h',
      'Lifetime of each serving certificate (never past its CA); renewed when a third is left, checked every tenth of it (at most 1m).',
      parseDuration,
    ),
    'ca-overlap': stringFlag(
      '1h',
      'How long a new CA is trusted before it signs, and an old one after it stopped signing.',
      parseDuration,
    ),
  });
}

/** `parseArgs` options for the certificate flags. */
export function certificateFlagOptions(defaultService: string) {
  return parseArgsOptions(certificateFlagTable(defaultService));
}

/**
 * The certificate flags as parsed by `parseArgs` with `certificateFlagOptions`: settings,
 * with the lifetimes checked (see `lifetimesProblem`). `env` gives the namespace of the
 * Service's DNS names.
 */
export function parseCertificateFlags(
  values: Readonly<
    Record<keyof ReturnType<typeof certificateFlagTable>, string>
  >,
  env: NodeJS.ProcessEnv = process.env,
): CertificateManagement {
  const settings = parseFlagValues(
    certificateFlagTable(values['certs-service']),
    values,
  );
  const lifetimes: CertificateLifetimes = {
    caValidityMs: settings['ca-validity'],
    certValidityMs: settings['cert-validity'],
    caOverlapMs: settings['ca-overlap'],
  };
  const problem = lifetimesProblem(lifetimes);
  if (problem !== undefined) throw new FlagError(problem);
  const service = settings['certs-service'];
  const namespace = env['NAMESPACE'] || env['POD_NAMESPACE'] || 'kube-system';
  const serviceNames = [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
  ];
  return {
    secret: settings['certs-secret'],
    dir: settings['certs-dir'],
    identity: {
      commonName: `${service}.${namespace}.svc`,
      dnsNames: [...serviceNames, ...settings['certs-dns-names']],
      ipAddresses: settings['certs-ip-addresses'],
    },
    lifetimes,
  };
}
