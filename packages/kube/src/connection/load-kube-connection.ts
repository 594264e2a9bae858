import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { RequestOptions } from 'node:https';
import { delimiter, join } from 'node:path';
import {
  resolveKubeConfigSource,
  type LoadKubeConfigOptions,
} from '../kubeconfig-source.js';
import { kubeConnectionOf, type KubeConnection } from './kube-connection.js';
import {
  selectKubeconfig,
  type KubeconfigCluster,
  type KubeconfigUser,
} from './kubeconfig-file.js';

/** How long a token read from a file is used before the file is read again, as client-go. */
export const TOKEN_FILE_REREAD_MS = 60_000;

/**
 * A KubeConnection from the first kubeconfig source that applies, decided as
 * `loadKubeConfig` decides it (`resolveKubeConfigSource`), without loading client-node: the
 * in-cluster service account, or kubeconfig files with tokens, token files, client
 * certificates or basic auth. A user whose credentials come from an `exec` plugin or an
 * `auth-provider` is handed to client-node, loaded then and only then (ADR 0027).
 */
export async function loadKubeConnection(
  options: LoadKubeConfigOptions = {},
): Promise<KubeConnection> {
  const source = resolveKubeConfigSource(options);
  const env = options.env ?? process.env;
  if (source.kind === 'in-cluster') {
    const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
    return tlsConnection(
      `https://${host.includes(':') ? `[${host}]` : host}:${env['KUBERNETES_SERVICE_PORT']}`,
      { ca: readFileSync(join(source.serviceAccountDir, 'ca.crt'), 'utf8') },
      { tokenFile: join(source.serviceAccountDir, 'token') },
    );
  }
  const where = `${source.paths.join(delimiter)} (${source.origin})`;
  const files = await Promise.all(
    source.paths.map(async (path) => ({
      path,
      text: await readFile(path, 'utf8'),
    })),
  );
  const { cluster, user } = selectKubeconfig(files, where, options.context);
  if (user.plugin !== undefined) {
    const { loadKubeConfig } = await import('../kubeconfig.js');
    return kubeConnectionOf(loadKubeConfig(options));
  }
  return tlsConnection(cluster.server, clusterTls(cluster), user);
}

function clusterTls(cluster: KubeconfigCluster): RequestOptions {
  return {
    ca: material(
      cluster.certificateAuthorityData,
      cluster.certificateAuthority,
    ),
    rejectUnauthorized: !cluster.insecureSkipTlsVerify,
    ...(cluster.tlsServerName === undefined
      ? {}
      : { servername: cluster.tlsServerName }),
  };
}

/** Inline base64 data wins over a file, as in client-go. */
function material(
  data: string | undefined,
  file: string | undefined,
): string | undefined {
  if (data !== undefined) return Buffer.from(data, 'base64').toString();
  return file === undefined ? undefined : readFileSync(file, 'utf8');
}

function tlsConnection(
  server: string,
  tls: RequestOptions,
  user: KubeconfigUser,
): KubeConnection {
  const fixed: RequestOptions = {
    ...tls,
    cert: material(user.clientCertificateData, user.clientCertificate),
    key: material(user.clientKeyData, user.clientKey),
  };
  const authorization = authorizationOf(user);
  return {
    server: server.replace(/\/+$/, ''),
    async requestOptions() {
      const header = await authorization();
      return header === undefined
        ? fixed
        : { ...fixed, headers: { authorization: header } };
    },
  };
}

/** The `authorization` header a user sends, if any; a token file is re-read each minute. */
function authorizationOf(
  user: KubeconfigUser,
): () => Promise<string | undefined> {
  if (user.token !== undefined) {
    const header = `Bearer ${user.token}`;
    return () => Promise.resolve(header);
  }
  const { tokenFile } = user;
  if (tokenFile !== undefined) {
    let cached: { header: string; readAtMs: number } | undefined;
    return async () => {
      const now = Date.now();
      if (cached === undefined || now - cached.readAtMs >= TOKEN_FILE_REREAD_MS)
        cached = {
          header: `Bearer ${(await readFile(tokenFile, 'utf8')).trim()}`,
          readAtMs: now,
        };
      return cached.header;
    };
  }
  if (user.username !== undefined) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`);
    const header = `Basic ${basic.toString('base64')}`;
    return () => Promise.resolve(header);
  }
  return () => Promise.resolve(undefined);
}
