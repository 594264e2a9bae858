import type {
  Container,
  OriginalContainerResources,
  Pod,
} from '@tandem/vpa-api';

/**
 * The value of the `tandem.dev/original-resources` annotation: JSON of every init container
 * and container (in that order, the order the pod spec lists and starts them) with its
 * requests and limits exactly as submitted — quantity text untouched, and empty maps for a
 * container that declared nothing. Names are unique within a pod; should one repeat, the
 * first entry is kept. The reader, `parseOriginalResources`, lives in `@tandem/vpa-api`
 * so the metrics adapter can read the annotation without depending on the webhook.
 */
export function originalResourcesAnnotation(pod: Pod): string {
  const members: string[] = [];
  const seen = new Set<string>();
  for (const container of allContainers(pod)) {
    if (seen.has(container.name)) continue;
    seen.add(container.name);
    const { requests, limits } = submittedResources(container);
    members.push(
      `${JSON.stringify(container.name)}:${JSON.stringify({ requests, limits })}`,
    );
  }
  // Written member by member: a JavaScript object would move names that look like array
  // indexes (a container may be called `0`) ahead of the others.
  return `{${members.join(',')}}`;
}

function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

function submittedResources(container: Container): OriginalContainerResources {
  return {
    requests: container.resources?.requests ?? {},
    limits: container.resources?.limits ?? {},
  };
}
