import type { RequestAttributes } from './request-attributes.js';
import { forbiddenError, forbiddenMessage } from './forbidden.js';

const podsMetric: RequestAttributes = {
  resource: {
    namespace: 'shop',
    verb: 'get',
    group: 'custom.metrics.k8s.io',
    version: 'v1beta2',
    resource: 'pods',
    subresource: 'cpu_usage',
    name: '*',
  },
};

describe('forbiddenMessage', () => {
  it('words a namespaced request as the Go apiserver does', () => {
    expect(forbiddenMessage('x', podsMetric)).toBe(
      'User "x" cannot get resource "pods/cpu_usage" in API group "custom.metrics.k8s.io" in the namespace "shop"',
    );
  });

  it('words a cluster-scoped request', () => {
    expect(
      forbiddenMessage('x', {
        resource: {
          verb: 'get',
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          resource: 'nodes',
        },
      }),
    ).toBe(
      'User "x" cannot get resource "nodes" in API group "custom.metrics.k8s.io" at the cluster scope',
    );
  });

  it('words a non-resource request, quoting like Go', () => {
    expect(
      forbiddenMessage('system:anonymous "x"', {
        nonResource: { path: '/openapi/v2', verb: 'get' },
      }),
    ).toBe('User "system:anonymous \\"x\\"" cannot get path "/openapi/v2"');
  });
});

describe('forbiddenError', () => {
  it('is what NewForbidden builds, with the reason appended', () => {
    expect(forbiddenError('x', podsMetric, 'no RBAC policy matched')).toEqual({
      message:
        'pods.custom.metrics.k8s.io "*" is forbidden: User "x" cannot get resource "pods/cpu_usage" in API group "custom.metrics.k8s.io" in the namespace "shop": no RBAC policy matched',
      details: { name: '*', group: 'custom.metrics.k8s.io', kind: 'pods' },
    });
  });

  it('starts with "forbidden:" for a non-resource request', () => {
    const error = forbiddenError(
      'x',
      { nonResource: { path: '/apis', verb: 'get' } },
      '',
    );
    expect(error.message).toBe('forbidden: User "x" cannot get path "/apis"');
    expect(error.details).toBeUndefined();
  });
});
