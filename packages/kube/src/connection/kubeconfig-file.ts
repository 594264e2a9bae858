import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

/** A kubeconfig file's text and where it was read (relative paths in it start there). */
export interface KubeconfigText {
  path: string;
  text: string;
}

/** The cluster of the selected context; file paths made absolute. */
export interface KubeconfigCluster {
  server: string;
  certificateAuthority?: string;
  certificateAuthorityData?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
}

/** The user of the selected context; file paths made absolute. */
export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  username?: string;
  password?: string;
  /** Credentials a program or an OAuth flow provides (`exec`, `auth-provider`). */
  plugin?: 'exec' | 'auth-provider';
}

export interface KubeconfigSelection {
  context: string;
  cluster: KubeconfigCluster;
  user: KubeconfigUser;
}

type Entry = { name?: unknown } & Record<string, unknown>;

/**
 * The cluster and user of one context of merged kubeconfig files, as kubectl merges them:
 * for each name the first file that defines it wins, and so does the first
 * `current-context`. `context` picks another context than the current one. Throws an
 * error naming `where` when a file is not a kubeconfig or the context is incomplete.
 */
export function selectKubeconfig(
  files: readonly KubeconfigText[],
  where: string,
  context?: string,
): KubeconfigSelection {
  const clusters = new Map<string, { entry: Entry; dir: string }>();
  const users = new Map<string, { entry: Entry; dir: string }>();
  const contexts = new Map<string, Entry>();
  let current: string | undefined;
  for (const file of files) {
    let document: Record<string, unknown>;
    try {
      document = (parse(file.text) ?? {}) as Record<string, unknown>;
    } catch (error) {
      throw new Error(
        `cannot load kubeconfig ${file.path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const dir = dirname(file.path);
    for (const entry of entries(document['clusters']))
      addFirst(clusters, entry, { entry: inner(entry, 'cluster'), dir });
    for (const entry of entries(document['users']))
      addFirst(users, entry, { entry: inner(entry, 'user'), dir });
    for (const entry of entries(document['contexts']))
      addFirst(contexts, entry, inner(entry, 'context'));
    const named = document['current-context'];
    if (current === undefined && typeof named === 'string' && named !== '')
      current = named;
  }
  const chosen = context !== undefined && context !== '' ? context : current;
  const selected = chosen === undefined ? undefined : contexts.get(chosen);
  if (selected === undefined)
    throw new Error(
      context !== undefined && context !== ''
        ? `context ${context} is not in ${where}; known contexts: ${[...contexts.keys()].join(', ') || 'none'}`
        : `the current context (${current ?? 'none'}) of ${where} names no cluster`,
    );
  const cluster = clusters.get(String(selected['cluster']));
  const server = cluster?.entry['server'];
  if (cluster === undefined || typeof server !== 'string' || server === '')
    throw new Error(
      `the current context (${chosen}) of ${where} names no cluster`,
    );
  const user = users.get(String(selected['user']));
  return {
    context: chosen as string,
    cluster: readCluster(server, cluster.entry, cluster.dir),
    user: user === undefined ? {} : readUser(user.entry, user.dir),
  };
}

function entries(list: unknown): Entry[] {
  return Array.isArray(list)
    ? list.filter(
        (entry): entry is Entry => typeof entry === 'object' && entry !== null,
      )
    : [];
}

function inner(entry: Entry, field: string): Entry {
  const value = entry[field];
  return typeof value === 'object' && value !== null ? (value as Entry) : {};
}

function addFirst<T>(map: Map<string, T>, entry: Entry, value: T): void {
  if (typeof entry.name === 'string' && !map.has(entry.name))
    map.set(entry.name, value);
}

function readCluster(
  server: string,
  entry: Entry,
  dir: string,
): KubeconfigCluster {
  return {
    server: server.replace(/\/+$/, ''),
    certificateAuthority: path(entry['certificate-authority'], dir),
    certificateAuthorityData: text(entry['certificate-authority-data']),
    insecureSkipTlsVerify: entry['insecure-skip-tls-verify'] === true,
    tlsServerName: text(entry['tls-server-name']),
  };
}

function readUser(entry: Entry, dir: string): KubeconfigUser {
  const plugin =
    entry['exec'] !== undefined && entry['exec'] !== null
      ? 'exec'
      : entry['auth-provider'] !== undefined && entry['auth-provider'] !== null
        ? 'auth-provider'
        : undefined;
  return {
    token: text(entry['token']),
    tokenFile: path(entry['tokenFile'], dir),
    clientCertificate: path(entry['client-certificate'], dir),
    clientCertificateData: text(entry['client-certificate-data']),
    clientKey: path(entry['client-key'], dir),
    clientKeyData: text(entry['client-key-data']),
    username: text(entry['username']),
    password: text(entry['password']),
    ...(plugin === undefined ? {} : { plugin }),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function path(value: unknown, dir: string): string | undefined {
  const given = text(value);
  if (given === undefined) return undefined;
  return isAbsolute(given) ? given : resolve(dir, given);
}
