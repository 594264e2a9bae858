import { podSnapshotFromPod } from './pod-snapshot.js';

describe('podSnapshotFromPod', () => {
  const pod = {
    metadata: { namespace: 'shop', name: 'web-1', labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'app', resources: { requests: { memory: '1Gi' } } },
        { name: 'log' },
      ],
      initContainers: [{ name: 'migrate' }],
    },
    status: {
      phase: 'Running',
      containerStatuses: [
        { name: 'app', resources: { requests: { memory: '1.5Gi' } } },
      ],
    },
  };

  it('takes reported resources over the spec, and 0 for no request', () => {
    expect(podSnapshotFromPod(pod)).toEqual({
      ok: true,
      snapshot: {
        namespace: 'shop',
        name: 'web-1',
        labels: { app: 'web' },
        phase: 'Running',
        containers: [
          { name: 'app', memoryRequestBytes: 1610612736 },
          { name: 'log', memoryRequestBytes: 0 },
        ],
        initContainerNames: ['migrate'],
      },
    });
  });

  it('returns an error for a pod without a name or with a malformed quantity', () => {
    expect(podSnapshotFromPod({ ...pod, metadata: {} })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
    const malformed = {
      ...pod,
      status: { phase: 'Running' },
      spec: {
        containers: [
          { name: 'app', resources: { requests: { memory: 'lots' } } },
        ],
      },
    };
    expect(podSnapshotFromPod(malformed)).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
  });
});
