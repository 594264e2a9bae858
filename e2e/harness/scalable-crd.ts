import type { V1CustomResourceDefinition } from '@kubernetes/client-node';

/**
 * A namespaced custom resource definition, version v1, whose objects scale through a
 * `scale` subresource (`spec.replicas`, `status.replicas`, selector at `status.selector`)
 * as a CloneSet or an Argo Rollout does; the status subresource lets a test write the
 * selector.
 */
export function scalableCrd(
  group: string,
  names: { plural: string; singular: string; kind: string },
): V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { replicas: { type: 'integer' } },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer' },
                    selector: { type: 'string' },
                  },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
        },
      ],
    },
  };
}
