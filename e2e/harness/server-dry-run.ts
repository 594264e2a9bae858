import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadYaml, type KubernetesObject } from '@kubernetes/client-node';
import { kubectl } from './kustomize.ts';

/** How kubectl names an object in its output: `<kind>.<group>/<name>`, `<kind>/<name>` in core. */
export function kubectlName({
  apiVersion = '',
  kind = '',
  metadata,
}: KubernetesObject): string {
  const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0]}` : '';
  return `${kind.toLowerCase()}${group}/${metadata?.name ?? ''}`;
}

const ACCEPTED = /^(\S+) (?:created|replaced) \(server dry run\)$/;
/** What another writer does between the lookup and the dry run: the lookup is made again. */
const RACED = /\((AlreadyExists|NotFound)\)/;

/**
 * A server-side dry run of each YAML document exactly as written, whatever the cluster already
 * holds: objects it has are dry-run replaced, the others dry-run created. Resolves to the
 * kubectl names of the objects the API server accepted; a refused one rejects with its error.
 *
 * Not `kubectl apply --dry-run=server`: its three-way merge keeps the fields another writer
 * set on an object kubectl never applied, so on a shared cluster it checks a mix, not the
 * manifest (a suite's self-registered vpa-webhook-config keeps its `url` beside the rendered
 * `service`, and the API server refuses the pair).
 */
export async function serverDryRun(
  documents: string[],
  directory: string,
): Promise<string[]> {
  const named = documents.map((document) => ({
    document,
    name: kubectlName(loadYaml<KubernetesObject>(document)),
  }));
  const write = (file: string, subset: typeof named) => {
    const path = join(directory, file);
    writeFileSync(path, subset.map(({ document }) => document).join('\n---\n'));
    return path;
  };
  const all = write('dry-run-all.yaml', named);
  for (let attempt = 1; ; attempt += 1) {
    const existing = new Set(
      (await kubectl('get', '-f', all, '--ignore-not-found', '-o', 'name'))
        .split('\n')
        .filter((line) => line !== ''),
    );
    try {
      let stdout = '';
      for (const [verb, subset] of [
        ['replace', named.filter(({ name }) => existing.has(name))],
        ['create', named.filter(({ name }) => !existing.has(name))],
      ] as const)
        if (subset.length > 0)
          stdout += await kubectl(
            verb,
            '--dry-run=server',
            '-f',
            write(`dry-run-${verb}.yaml`, subset),
          );
      return stdout
        .trim()
        .split('\n')
        .map((line) => ACCEPTED.exec(line)?.[1] ?? `not accepted: ${line}`);
    } catch (error) {
      if (attempt === 3 || !RACED.test(String(error))) throw error;
    }
  }
}
