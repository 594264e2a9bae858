import { request } from 'node:http';

/** A pod of the ReplicaSet `web-6d4f` (Deployment `web`), reviewed on CREATE in `demo`. */
export const podReview = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'uid-1',
    operation: 'CREATE',
    namespace: 'demo',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-1',
        labels: { app: 'web' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'web-6d4f',
            uid: 'rs-uid',
            controller: true,
          },
        ],
      },
      spec: {
        containers: [{ name: 'app', resources: { requests: { cpu: '500m' } } }],
      },
    },
  },
};

/** The VPA of the Deployment `web`, mode Initial, recommending 250m of CPU for `app`. */
export const vpa = {
  apiVersion: 'autoscaling.k8s.io/v1',
  kind: 'VerticalPodAutoscaler',
  metadata: {
    name: 'web',
    namespace: 'demo',
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec: {
    targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    updatePolicy: { updateMode: 'Initial' },
  },
  status: {
    recommendation: {
      containerRecommendations: [
        {
          containerName: 'app',
          target: { cpu: '250m' },
          lowerBound: { cpu: '200m' },
          upperBound: { cpu: '300m' },
        },
      ],
    },
  },
};

/** POSTs a body to the review server at `url`; resolves with the status and the JSON answer. */
export function postReview(
  url: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { 'content-type': contentType } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
