import { parseArgs } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { FlagError } from '@tandem/flags';
import { httpStatusOf, loadKubeConfig } from '@tandem/kube';
import {
  certificateExpiry,
  createCertificateAuthority,
  issueServingCertificate,
  type CertificatePair,
} from './certificates.js';
import { writeCertificateFiles } from './certificate-files.js';

/** A stored pair is renewed when it has less than this left. */
const RENEW_BEFORE_SECONDS = 30 * 24 * 3600;

interface CertsFlags {
  dir: string;
  dnsNames: string[];
  ipAddresses: string[];
  validityDays: number;
  secret: { namespace: string; name: string } | undefined;
  kubeconfig: string | undefined;
}

interface StoredPairs {
  ca: CertificatePair;
  serving: CertificatePair;
}

/**
 * `<program> certs`: the bootstrap path without cert-manager, shared by the apps that serve
 * HTTPS to the API server. Makes a CA and a serving certificate for a Service's DNS names
 * and writes upstream's file names (`caCert.pem`, `serverCert.pem`, `serverKey.pem`) into
 * `--dir`. With `--secret ns/name` (a Deployment's init container) the pair is shared
 * through that Secret: the first replica creates it, the others, and every restart, reuse
 * it until it nears expiry, so all replicas serve one CA and the registered caBundle stays
 * right.
 */
export async function certsCommand(
  argv: readonly string[],
  { program, defaultService }: { program: string; defaultService: string },
): Promise<number> {
  let flags: CertsFlags;
  try {
    flags = parseCertsFlags(argv, defaultService);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${program} certs: ${error.message}\n`);
    return 2;
  }
  const pairs =
    flags.secret === undefined
      ? newPairs(flags)
      : await sharedPairs(
          loadKubeConfig({ kubeconfigPath: flags.kubeconfig }),
          flags.secret,
          flags,
        );
  const files = await writeCertificateFiles(flags.dir, pairs);
  process.stdout.write(
    `${JSON.stringify({ msg: 'certificates written', ...files })}\n`,
  );
  return 0;
}

function parseCertsFlags(
  argv: readonly string[],
  defaultService: string,
): CertsFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        dir: { type: 'string' },
        service: { type: 'string', default: defaultService },
        namespace: {
          type: 'string',
          default: process.env['NAMESPACE'] || 'kube-system',
        },
        'dns-name': { type: 'string', multiple: true, default: [] },
        ip: { type: 'string', multiple: true, default: [] },
        'validity-days': { type: 'string', default: '365' },
        secret: { type: 'string' },
        kubeconfig: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  if (values.dir === undefined) throw new FlagError('--dir is required');
  const validityDays = Number(values['validity-days']);
  if (!Number.isInteger(validityDays) || validityDays < 1)
    throw new FlagError(
      `--validity-days must be a whole number from 1, got '${values['validity-days']}'`,
    );
  const { service, namespace } = values;
  let secret: CertsFlags['secret'];
  if (values.secret !== undefined) {
    const [secretNamespace, secretName, ...rest] = values.secret.split('/');
    if (!secretNamespace || !secretName || rest.length > 0)
      throw new FlagError(
        `--secret must be namespace/name, got '${values.secret}'`,
      );
    secret = { namespace: secretNamespace, name: secretName };
  }
  return {
    dir: values.dir,
    dnsNames: [
      service,
      `${service}.${namespace}`,
      `${service}.${namespace}.svc`,
      `${service}.${namespace}.svc.cluster.local`,
      ...values['dns-name'],
    ],
    ipAddresses: values.ip,
    validityDays,
    secret,
    kubeconfig: values.kubeconfig,
  };
}

function newPairs(flags: CertsFlags): StoredPairs {
  const ca = createCertificateAuthority({
    commonName: `${flags.dnsNames[0] ?? 'tandem'}-ca`,
    validityDays: flags.validityDays,
  });
  const serving = issueServingCertificate(ca, {
    commonName: flags.dnsNames[2] ?? flags.dnsNames[0] ?? 'tandem',
    dnsNames: flags.dnsNames,
    ipAddresses: flags.ipAddresses,
    validityDays: flags.validityDays,
  });
  return { ca, serving };
}

const SECRET_KEYS = {
  caCert: 'caCert.pem',
  caKey: 'caKey.pem',
  serverCert: 'serverCert.pem',
  serverKey: 'serverKey.pem',
} as const;

async function sharedPairs(
  kubeConfig: KubeConfig,
  secret: { namespace: string; name: string },
  flags: CertsFlags,
): Promise<StoredPairs> {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const stored = await readStored(api, secret);
  if (stored !== undefined && !nearExpiry(stored)) return stored;
  const pairs = newPairs(flags);
  const data = Object.fromEntries(
    Object.entries({
      caCert: pairs.ca.certPem,
      caKey: pairs.ca.keyPem,
      serverCert: pairs.serving.certPem,
      serverKey: pairs.serving.keyPem,
    }).map(([key, pem]) => [
      SECRET_KEYS[key as keyof typeof SECRET_KEYS],
      Buffer.from(pem).toString('base64'),
    ]),
  );
  try {
    if (stored === undefined)
      await api.createNamespacedSecret({
        namespace: secret.namespace,
        body: { metadata: { ...secret }, type: 'Opaque', data },
      });
    else
      await api.replaceNamespacedSecret({
        ...secret,
        body: { metadata: { ...secret }, type: 'Opaque', data },
      });
    return pairs;
  } catch (error) {
    // Another replica wrote first: everyone serves the pair that won.
    if (httpStatusOf(error) !== 409) throw error;
    const winner = await readStored(api, secret);
    if (winner === undefined) throw error;
    return winner;
  }
}

async function readStored(
  api: CoreV1Api,
  secret: { namespace: string; name: string },
): Promise<StoredPairs | undefined> {
  let data: Record<string, string> | undefined;
  try {
    data = (await api.readNamespacedSecret(secret)).data;
  } catch (error) {
    if (httpStatusOf(error) === 404) return undefined;
    throw error;
  }
  const pem = (key: keyof typeof SECRET_KEYS) =>
    Buffer.from(data?.[SECRET_KEYS[key]] ?? '', 'base64').toString();
  const pairs = {
    ca: { certPem: pem('caCert'), keyPem: pem('caKey') },
    serving: { certPem: pem('serverCert'), keyPem: pem('serverKey') },
  };
  const complete = [pairs.ca, pairs.serving].every(
    (pair) => pair.certPem !== '' && pair.keyPem !== '',
  );
  return complete ? pairs : undefined;
}

function nearExpiry(pairs: StoredPairs): boolean {
  try {
    return (
      certificateExpiry(pairs.serving.certPem) - Date.now() / 1000 <
      RENEW_BEFORE_SECONDS
    );
  } catch {
    return true;
  }
}
