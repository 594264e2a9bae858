import type { VpaStore } from './vpa-store.js';
import type {
  VerticalPodAutoscaler,
  VerticalPodAutoscalerCheckpoint,
} from '@tandem/vpa-api';

/**
 * The API server as the recommender sees it, in memory (for tests and benchmarks): a written status shows up on the
 * listed VPA (as the VPA watch would deliver it, so unchanged statuses are not rewritten),
 * and a written checkpoint replaces the previous one of the same name.
 */
export interface InMemoryVpaStore extends VpaStore {
  listVpas(): VerticalPodAutoscaler[];
  readonly writes: { statuses: number; checkpoints: number };
}

export function inMemoryVpaStore(
  vpas: readonly VerticalPodAutoscaler[],
): InMemoryVpaStore {
  const byKey = new Map(vpas.map((vpa) => [keyOf(vpa), vpa]));
  const checkpoints = new Map<string, VerticalPodAutoscalerCheckpoint>();
  const writes = { statuses: 0, checkpoints: 0 };
  return {
    writes,
    listVpas: () => [...byKey.values()],
    async writeStatus(namespace, name, status) {
      const key = `${namespace}/${name}`;
      const vpa = byKey.get(key);
      if (vpa === undefined) throw new Error(`no VPA ${key}`);
      byKey.set(key, { ...vpa, status });
      writes.statuses += 1;
    },
    async writeCheckpoint(checkpoint) {
      checkpoints.set(keyOf(checkpoint), checkpoint);
      writes.checkpoints += 1;
    },
    async listCheckpoints(namespace) {
      return [...checkpoints.values()].filter(
        (checkpoint) =>
          namespace === undefined ||
          checkpoint.metadata?.namespace === namespace,
      );
    },
    async deleteCheckpoint(namespace, name) {
      checkpoints.delete(`${namespace}/${name}`);
    },
  };
}

function keyOf(object: {
  metadata?: { namespace?: string; name?: string };
}): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
