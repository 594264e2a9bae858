import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { renderKustomization } from './kustomize.ts';

/** A user's overlay in a temporary directory of its own (`dir`, for `kubectl apply -k`). */
export interface Overlay {
  dir: string;
  objects: KubernetesObject[];
  remove(): void;
}

/**
 * Writes and renders the overlay a user writes to install with components: `resources` and
 * `components` are directories, referred to relatively (kustomize refuses absolute paths).
 */
export async function renderOverlay({
  resources,
  components,
}: {
  resources: string[];
  components: string[];
}): Promise<Overlay> {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-overlay-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const list = (paths: string[]) =>
    paths.map((path) => `  - ${relative(dir, path)}`);
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      ...list(resources),
      'components:',
      ...list(components),
      '',
    ].join('\n'),
  );
  try {
    return { dir, objects: await renderKustomization(dir), remove };
  } catch (error) {
    remove();
    throw error;
  }
}
