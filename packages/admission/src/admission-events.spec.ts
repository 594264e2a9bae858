import { admit } from './admit.js';
import {
  candidate,
  containerWith,
  contextWith,
  podReview,
  podWith,
  vpaWith,
  type ContextOptions,
} from './admission.fixtures.js';

async function eventsOf(options: ContextOptions) {
  const pod = podWith([
    containerWith('app', { cpu: '100m', memory: '128Mi' }),
    containerWith('sidecar', { cpu: '10m' }),
  ]);
  return (await admit(podReview(pod), contextWith(options))).events;
}

const WEB_VPA = {
  apiVersion: 'autoscaling.k8s.io/v1',
  kind: 'VerticalPodAutoscaler',
  namespace: 'demo',
  name: 'web',
  uid: undefined,
};
const POD = 'Pod web-6d4f-% of ReplicaSet web-6d4f';

describe('admit: PodLeftUnchanged events', () => {
  it('on a VPA in mode Off that matches the pod', async () => {
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }], {
      mode: 'Off',
    });
    expect(await eventsOf({ vpas: [candidate(vpa)] })).toEqual([
      {
        vpa: WEB_VPA,
        type: 'Normal',
        reason: 'PodLeftUnchanged',
        message: `${POD} admitted with its resources as declared: update mode Off`,
      },
    ]);
  });

  it('on a VPA with no recommendation yet', async () => {
    expect(
      await eventsOf({ vpas: [candidate(vpaWith(undefined))] }),
    ).toMatchObject([
      {
        type: 'Normal',
        message: `${POD} admitted with its resources as declared: vpa demo/web has no recommendation yet`,
      },
    ]);
  });

  it('on a VPA whose container policies leave nothing to set', async () => {
    const vpa = vpaWith(
      [
        { containerName: 'app', target: { cpu: '1' } },
        { containerName: 'sidecar', target: { cpu: '1' } },
      ],
      { policies: [{ containerName: '*', mode: 'Off' }] },
    );
    expect(await eventsOf({ vpas: [candidate(vpa)] })).toMatchObject([
      {
        message: `${POD} admitted with its resources as declared: vpa demo/web has nothing to set on this pod`,
      },
    ]);
  });

  it('a Warning when the VPA could not be applied', async () => {
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: 'lots' } }]);
    expect(await eventsOf({ vpas: [candidate(vpa)] })).toMatchObject([
      {
        type: 'Warning',
        reason: 'PodLeftUnchanged',
        message: expect.stringContaining(
          'admitted with its resources as declared: vpa demo/web not applied',
        ) as unknown,
      },
    ]);
  });

  it('none for a pod whose resources were set, nor for a pod no VPA controls', async () => {
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    expect(await eventsOf({ vpas: [candidate(vpa)] })).toBeUndefined();
    expect(await eventsOf({})).toBeUndefined();
    expect(
      await eventsOf({
        vpas: [candidate(vpa, { matchLabels: { app: 'db' } })],
      }),
    ).toBeUndefined();
  });
});
