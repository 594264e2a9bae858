import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ApiextensionsV1Api,
  loadAllYaml,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { httpStatusOf, type KubeClients } from './kube.ts';
import { waitFor, type WaitOptions } from './wait.ts';

/** The repository's `deploy/` directory (CRDs, RBAC, Deployments, ...). */
export const DEPLOY_DIR = resolve(import.meta.dirname, '..', '..', 'deploy');

/**
 * The CustomResourceDefinitions of a YAML file (one or more `---` documents). client-node's
 * loader turns the YAML keys into its model's property names (`x-kubernetes-int-or-string`
 * → `x_kubernetes_int_or_string`), which its API calls need: a plain parsed object would
 * lose every such field on the way out.
 */
export function loadCustomResourceDefinitions(
  path: string,
): V1CustomResourceDefinition[] {
  const documents: unknown[] = loadAllYaml(readFileSync(path, 'utf8'));
  return documents
    .filter((document) => document !== null && document !== undefined)
    .map((document) => {
      const crd = document as V1CustomResourceDefinition;
      if (
        crd.kind !== 'CustomResourceDefinition' ||
        crd.metadata?.name === undefined
      )
        throw new Error(
          `${path}: expected only named CustomResourceDefinitions, found ${crd.kind ?? 'a document without kind'}`,
        );
      return crd;
    });
}

function isEstablished(crd: V1CustomResourceDefinition): boolean {
  return (
    crd.status?.conditions?.some(
      (condition) =>
        condition.type === 'Established' && condition.status === 'True',
    ) === true
  );
}

/**
 * Creates the CRD, or replaces the one of the same name (whoever installed it), and waits
 * until it is Established, i.e. served. CRDs are cluster-scoped and stay installed for the
 * suites that follow, so this is idempotent. A replaced CRD was already Established: its new
 * schema takes effect within moments, which the API server does not report.
 */
export async function applyCustomResourceDefinition(
  kube: KubeClients,
  crd: V1CustomResourceDefinition,
  { timeoutMs = 30_000 }: WaitOptions = {},
): Promise<V1CustomResourceDefinition> {
  const api = kube.config.makeApiClient(ApiextensionsV1Api);
  const name = crd.metadata?.name ?? '';
  // Another writer between our read and our write makes the write fail with 409 Conflict
  // (create: AlreadyExists; replace: stale resourceVersion): read again and retry. Any
  // other error (422: the CRD itself is invalid) is final.
  for (let attempt = 1; ; attempt += 1) {
    let existing: V1CustomResourceDefinition | undefined;
    try {
      existing = await api.readCustomResourceDefinition({ name });
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
    }
    try {
      if (existing === undefined)
        await api.createCustomResourceDefinition({ body: crd });
      else
        await api.replaceCustomResourceDefinition({
          name,
          body: {
            ...crd,
            metadata: {
              ...crd.metadata,
              resourceVersion: existing.metadata?.resourceVersion,
            },
          },
        });
      break;
    } catch (error) {
      if (httpStatusOf(error) !== 409 || attempt === 5) throw error;
    }
  }
  let last: V1CustomResourceDefinition | undefined;
  const established = await waitFor(
    `CustomResourceDefinition ${name} to be Established`,
    async () => {
      last = await api.readCustomResourceDefinition({ name });
      return isEstablished(last) ? last : undefined;
    },
    { timeoutMs },
    async () => JSON.stringify(last?.status?.conditions ?? []),
  );
  // Established is the API server's word that it serves the resource; a list proves it
  // before the first test writes an object (the first request builds the storage).
  const served = crd.spec.versions.find((version) => version.served);
  if (served !== undefined)
    await waitFor(
      `${crd.spec.names.plural}.${crd.spec.group}/${served.name} to be served`,
      async () => {
        await kube.customObjects.listClusterCustomObject({
          group: crd.spec.group,
          version: served.name,
          plural: crd.spec.names.plural,
          limit: 1,
        });
        return true;
      },
      { timeoutMs },
    );
  return established;
}

/** The CRD files Tandem ships (`deploy/crds/*.yaml`), in a stable order. */
export function tandemCrdFiles(): string[] {
  const directory = join(DEPLOY_DIR, 'crds');
  return readdirSync(directory)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => join(directory, file));
}

/** Installs (or updates) every CRD Tandem ships and waits until each is served. */
export async function installTandemCrds(kube: KubeClients): Promise<void> {
  for (const file of tandemCrdFiles())
    for (const crd of loadCustomResourceDefinitions(file))
      await applyCustomResourceDefinition(kube, crd);
}
