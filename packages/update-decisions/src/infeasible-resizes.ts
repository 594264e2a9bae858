import { parseQuantity } from '@tandem/vpa-api';
import type { ContainerRecommendations } from './controlled-recommendation.js';

/**
 * Whether `current` asks for less of some resource than `previous` did: a container present
 * in both with a target below its previous target. Only then may an in-place resize the
 * kubelet found infeasible be tried again (InPlace mode). False when either is missing.
 */
export function hasLowerTarget(
  previous: ContainerRecommendations | undefined,
  current: ContainerRecommendations | undefined,
): boolean {
  if (previous === undefined || current === undefined) return false;
  const before = previous.containerRecommendations ?? [];
  return (current.containerRecommendations ?? []).some((entry) => {
    const earlier = before.find(
      (candidate) => candidate.containerName === entry.containerName,
    );
    if (earlier === undefined) return false;
    return Object.entries(entry.target ?? {}).some(([resource, text]) => {
      const earlierText = earlier.target?.[resource];
      return (
        earlierText !== undefined &&
        parseQuantity(text).cmp(parseQuantity(earlierText)) < 0
      );
    });
  });
}

/**
 * InPlace mode's memory of resizes the node could not accommodate, by pod UID: the VPA
 * recommendation at the time. The updater keeps one across cycles and forgets pods that
 * are gone, as upstream does with its `infeasibleAttempts` map.
 */
export class InfeasibleResizes {
  private readonly attempts = new Map<string, ContainerRecommendations>();

  record(podUid: string, recommendation: ContainerRecommendations): void {
    this.attempts.set(podUid, recommendation);
  }

  /** The recommendation of the pod's last infeasible resize, if one is remembered. */
  lastAttempt(podUid: string): ContainerRecommendations | undefined {
    return this.attempts.get(podUid);
  }

  /** Drops every pod not among `livePodUids`. */
  retainOnly(livePodUids: Iterable<string>): void {
    // Most cycles remember nothing, and a set of every pod's UID is not free.
    if (this.attempts.size === 0) return;
    const live = new Set(livePodUids);
    for (const uid of [...this.attempts.keys()]) {
      if (!live.has(uid)) this.attempts.delete(uid);
    }
  }

  get size(): number {
    return this.attempts.size;
  }
}
