import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { ingressAccess, type PolicyTarget } from './network-policy-access.ts';

const pod: PolicyTarget = {
  labels: { app: 'web' },
  ports: [
    { name: 'https', containerPort: 8443 },
    { name: 'metrics', containerPort: 9090 },
  ],
};
const monitoring = {
  namespaceSelector: { matchLabels: { monitoring: 'true' } },
};
const policy = (spec: V1NetworkPolicy['spec']): V1NetworkPolicy => ({
  metadata: { name: 'p' },
  spec,
});

describe('ingressAccess', () => {
  it('leaves a pod no policy selects unrestricted', () => {
    const other = policy({
      podSelector: { matchLabels: { app: 'db' } },
      policyTypes: ['Ingress'],
    });
    expect(ingressAccess([other], pod, 8443)).toEqual({ kind: 'unrestricted' });
  });

  it('admits nothing to a selected pod without rules', () => {
    const denyAll = policy({ podSelector: {}, policyTypes: ['Ingress'] });
    expect(ingressAccess([denyAll], pod, 8443)).toEqual({
      kind: 'isolated',
      anySource: false,
      peers: [],
    });
  });

  it('an Egress-only policy does not isolate for ingress', () => {
    const egress = policy({ podSelector: {}, policyTypes: ['Egress'] });
    expect(ingressAccess([egress], pod, 8443)).toEqual({
      kind: 'unrestricted',
    });
  });

  it('resolves named ports through the container ports, and unions the policies', () => {
    const policies = [
      policy({
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Ingress'],
        ingress: [{ _from: [monitoring], ports: [{ port: 'metrics' }] }],
      }),
      policy({
        podSelector: {
          matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }],
        },
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ protocol: 'TCP', port: 'https' }] }],
      }),
    ];
    expect(ingressAccess(policies, pod, 9090)).toEqual({
      kind: 'isolated',
      anySource: false,
      peers: [monitoring],
    });
    expect(ingressAccess(policies, pod, 8443)).toEqual({
      kind: 'isolated',
      anySource: true,
      peers: [],
    });
    expect(ingressAccess(policies, pod, 22)).toEqual({
      kind: 'isolated',
      anySource: false,
      peers: [],
    });
  });

  it('matches numbered ports and ranges, TCP only', () => {
    const ranged = policy({
      podSelector: {},
      ingress: [
        { _from: [monitoring], ports: [{ port: 9000, endPort: 9100 }] },
        { ports: [{ protocol: 'UDP', port: 8443 }] },
      ],
    });
    expect(ingressAccess([ranged], pod, 9090)).toMatchObject({
      peers: [monitoring],
    });
    expect(ingressAccess([ranged], pod, 9101)).toMatchObject({ peers: [] });
    expect(ingressAccess([ranged], pod, 8443)).toMatchObject({
      anySource: false,
    });
  });
});
