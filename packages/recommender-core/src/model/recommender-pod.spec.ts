import type { V1Pod } from '@kubernetes/client-node';
import { sharedParts } from '@tandem/kube';
import { PodAnnotation } from '@tandem/vpa-api';
import { recommenderPod } from './recommender-pod.js';

/** Replica `name` of a ReplicaSet's pods as the API server lists them. */
function replica(name: string, startedAt: string): V1Pod {
  const container = (containerName: string) => ({
    name: containerName,
    image: 'registry.example/shop/web:1.4.2',
    env: [{ name: 'LOG_LEVEL', value: 'info' }],
    readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
    resources: { requests: { cpu: '250m', memory: '256Mi' } },
  });
  return {
    metadata: {
      namespace: 'shop',
      name,
      resourceVersion: `rv-${name}`,
      uid: `uid-${name}`,
      labels: { app: 'web', 'pod-template-hash': '7d9f' },
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Pod"}',
        [PodAnnotation.originalResources]: '{"app":{"requests":{"cpu":"1"}}}',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d9f',
          uid: 'rs',
          controller: true,
        },
      ],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update' },
      ],
    },
    spec: {
      containers: [container('app')],
      initContainers: [{ ...container('proxy'), restartPolicy: 'Always' }],
      nodeName: 'node-3',
    },
    status: {
      phase: 'Running',
      podIP: '10.0.0.7',
      containerStatuses: [
        {
          name: 'app',
          image: 'registry.example/shop/web:1.4.2',
          imageID: 'sha256:1',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date(startedAt) } },
        },
      ],
    },
  };
}

describe('recommenderPod', () => {
  it('keeps what the recommender reads and drops the rest', () => {
    expect(
      recommenderPod(replica('web-1', '2026-11-02T08:14:09Z'), sharedParts()),
    ).toEqual({
      metadata: {
        namespace: 'shop',
        name: 'web-1',
        resourceVersion: 'rv-web-1',
        labels: { app: 'web', 'pod-template-hash': '7d9f' },
        annotations: {
          [PodAnnotation.originalResources]: '{"app":{"requests":{"cpu":"1"}}}',
        },
      },
      spec: {
        containers: [
          {
            name: 'app',
            resources: { requests: { cpu: '250m', memory: '256Mi' } },
          },
        ],
        initContainers: [
          {
            name: 'proxy',
            resources: { requests: { cpu: '250m', memory: '256Mi' } },
            restartPolicy: 'Always',
          },
        ],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'app', restartCount: 0, state: { running: {} } },
        ],
      },
    });
  });

  it("holds the parts a controller's running pods have in common once", () => {
    const share = sharedParts();
    const first = recommenderPod(
      replica('web-1', '2026-11-02T08:14:09Z'),
      share,
    );
    const second = recommenderPod(
      replica('web-2', '2026-11-02T08:15:41Z'),
      share,
    );
    expect(second.metadata?.name).toBe('web-2');
    expect(second.metadata?.labels).toBe(first.metadata?.labels);
    expect(second.metadata?.annotations).toBe(first.metadata?.annotations);
    expect(second.spec).toBe(first.spec);
    expect(second.status).toBe(first.status);
  });

  it('leaves absent what the listed pod lacks', () => {
    const bare: V1Pod = {
      metadata: { namespace: 'shop', name: 'bare' },
      spec: { containers: [] },
    };
    expect(recommenderPod(bare, sharedParts())).toEqual({
      metadata: { namespace: 'shop', name: 'bare' },
      spec: { containers: [] },
    });
  });
});
