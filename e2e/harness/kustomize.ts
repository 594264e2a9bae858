import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import {
  clusterKubeconfig,
  controlPlaneValue,
  isLocalCluster,
} from './cluster-env.ts';

const run = promisify(execFile);

/**
 * `kubectl` against the cluster under test: the local control plane's own binary (same
 * version as its API server, kustomize built in), any other cluster's from the PATH.
 */
export async function kubectl(...args: string[]): Promise<string> {
  const binary = isLocalCluster()
    ? controlPlaneValue('TANDEM_CP_KUBECTL')
    : 'kubectl';
  const { stdout } = await run(
    binary,
    [`--kubeconfig=${clusterKubeconfig()}`, ...args],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/**
 * The objects `kubectl apply -k <directory>` would send, as `kubectl kustomize` renders
 * them (patches and components applied), typed as client-node's models: a key such as
 * `from` becomes the model's property name (`_from`).
 */
export async function renderKustomization(
  directory: string,
): Promise<KubernetesObject[]> {
  return (loadAllYaml(await kubectl('kustomize', directory)) as unknown[])
    .filter((object) => object !== null && object !== undefined)
    .map((object) => object as KubernetesObject);
}

/** The one rendered object of `kind` named `name`, or an error saying which is missing. */
export function findObject<T extends KubernetesObject>(
  objects: readonly KubernetesObject[],
  kind: string,
  name: string,
): T {
  const found = objects.find(
    (object) => object.kind === kind && object.metadata?.name === name,
  );
  if (found === undefined)
    throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found as T;
}

/** Every rendered object of `kind`. */
export function objectsOfKind<T extends KubernetesObject>(
  objects: readonly KubernetesObject[],
  kind: string,
): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}
