import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { PodForMetrics } from '@tandem/custom-metrics';
import type { PodTemplates } from './pod-templates.js';
import { podView } from './pod-view.js';

interface KeptView {
  readonly revision: number;
  readonly templateContainers: V1Container[] | undefined;
  readonly view: PodForMetrics;
}

/**
 * Each cached pod's view (`podView`), made once and kept while the pod object and its
 * template stay the same. The pod cache replaces an object on every change and templates'
 * containers are shared parts, so identity says "unchanged"; a revision of the namespace's
 * templates says when to look the template up again. A kept view keeps its identity too,
 * which is what lets `answerMetricQuery` remember its values between requests.
 */
export function podViews(
  templates: Pick<PodTemplates, 'containersOf' | 'revision'>,
): (pod: V1Pod) => PodForMetrics {
  const kept = new WeakMap<V1Pod, KeptView>();
  return (pod) => {
    const revision = templates.revision(pod.metadata?.namespace ?? '');
    const before = kept.get(pod);
    if (before?.revision === revision) return before.view;
    const templateContainers = templates.containersOf(pod);
    const view =
      before !== undefined && before.templateContainers === templateContainers
        ? before.view
        : podView(pod, templateContainers);
    kept.set(pod, { revision, templateContainers, view });
    return view;
  };
}
