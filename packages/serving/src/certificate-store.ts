import type { V1Secret } from '@kubernetes/client-node';
import {
  httpStatusOf,
  kubeGetJson,
  kubeSendJson,
  type KubeConnection,
} from '@tandem/kube';
import type { SecretContents } from './certificate-secret.js';

/** The Secret as read: its contents and the version a replace must name. */
export interface StoredSecret extends SecretContents {
  readonly resourceVersion: string;
}

/**
 * Where an installation's CAs live. Writes are optimistic: `create` when nothing was read,
 * otherwise a replace naming the version read; `'conflict'` means another replica wrote
 * first (409 Conflict, or AlreadyExists), and its result is to be read and adopted.
 */
export interface SecretStore {
  /** What the store holds, or undefined when there is no Secret; rejects on API errors. */
  read(): Promise<StoredSecret | undefined>;
  write(
    contents: SecretContents,
    resourceVersion: string | undefined,
  ): Promise<'written' | 'conflict'>;
}

/** `namespace/name`, as `--certs-secret` takes it. */
export interface SecretReference {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The Secret `reference` through the API server (RBAC: create secrets, get and update that
 * one). Labels and other annotations of an existing Secret are kept on replace.
 */
export function kubeSecretStore(
  connection: KubeConnection,
  reference: SecretReference,
): SecretStore {
  const get = kubeGetJson(connection);
  const send = kubeSendJson(connection);
  const collection = `/api/v1/namespaces/${encodeURIComponent(reference.namespace)}/secrets`;
  const path = `${collection}/${encodeURIComponent(reference.name)}`;
  let lastRead: V1Secret | undefined;
  return {
    async read() {
      try {
        lastRead = (await get(path)) as V1Secret;
      } catch (error) {
        if (httpStatusOf(error) === 404) return undefined;
        throw error;
      }
      return {
        data: Object.fromEntries(
          Object.entries(lastRead.data ?? {}).map(([key, base64]) => [
            key,
            Buffer.from(base64, 'base64').toString(),
          ]),
        ),
        annotations: { ...lastRead.metadata?.annotations },
        resourceVersion: lastRead.metadata?.resourceVersion ?? '',
      };
    },
    async write(contents, resourceVersion) {
      const body: V1Secret = {
        metadata: {
          ...reference,
          resourceVersion,
          labels:
            resourceVersion === undefined
              ? undefined
              : lastRead?.metadata?.labels,
          annotations: { ...contents.annotations },
        },
        type: 'Opaque',
        data: Object.fromEntries(
          Object.entries(contents.data).map(([key, text]) => [
            key,
            Buffer.from(text).toString('base64'),
          ]),
        ),
      };
      try {
        if (resourceVersion === undefined) await send('POST', collection, body);
        else await send('PUT', path, body);
        return 'written';
      } catch (error) {
        if (httpStatusOf(error) === 409) return 'conflict';
        throw error;
      }
    },
  };
}

/**
 * A store in memory with the API server's rules (a create finds nothing, a replace names
 * the current version): `certs` without `--certs-secret` uses it, and tests race replicas
 * on it.
 */
export function memorySecretStore(): SecretStore {
  let current: StoredSecret | undefined;
  let version = 0;
  return {
    read: () => Promise.resolve(current),
    write(contents, resourceVersion) {
      if (current?.resourceVersion !== resourceVersion)
        return Promise.resolve('conflict');
      version += 1;
      current = {
        data: { ...contents.data },
        annotations: { ...contents.annotations },
        resourceVersion: String(version),
      };
      return Promise.resolve('written');
    },
  };
}
