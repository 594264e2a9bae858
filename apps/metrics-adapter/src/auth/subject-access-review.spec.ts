import type { Caller } from './caller.js';
import {
  apiStatus,
  sendJson,
  startFakeApiServer,
  type FakeApiServer,
} from './fake-api-server.fixtures.js';
import type { RequestAttributes } from './request-attributes.js';
import {
  subjectAccessReviewBody,
  subjectAccessReviewer,
} from './subject-access-review.js';

const hpa: Caller = {
  user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: {},
  via: 'front-proxy',
};

const podsMetric: RequestAttributes = {
  resource: {
    namespace: 'shop',
    verb: 'get',
    group: 'custom.metrics.k8s.io',
    version: 'v1beta2',
    resource: 'pods',
    subresource: 'cpu_limit_utilization',
    name: '*',
  },
};

describe('subjectAccessReviewBody', () => {
  it('asks about the resource for the caller, as Go does', () => {
    expect(subjectAccessReviewBody(hpa, podsMetric)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
        groups: ['system:serviceaccounts', 'system:authenticated'],
        resourceAttributes: {
          namespace: 'shop',
          verb: 'get',
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          resource: 'pods',
          subresource: 'cpu_limit_utilization',
          name: '*',
        },
      },
    });
  });

  it('asks about a path, with uid and extra when known, omitting empty fields', () => {
    expect(
      subjectAccessReviewBody(
        { ...hpa, uid: 'u-1', extra: { scopes: ['view'] } },
        { nonResource: { path: '/openapi/v2', verb: 'get' } },
      ).spec,
    ).toEqual({
      user: hpa.user,
      uid: 'u-1',
      groups: hpa.groups,
      extra: { scopes: ['view'] },
      nonResourceAttributes: { path: '/openapi/v2', verb: 'get' },
    });
    expect(
      subjectAccessReviewBody(hpa, {
        resource: {
          namespace: '',
          verb: 'list',
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          resource: 'nodes',
        },
      }).spec?.resourceAttributes,
    ).toEqual({
      verb: 'list',
      group: 'custom.metrics.k8s.io',
      version: 'v1beta2',
      resource: 'nodes',
    });
  });
});

describe('subjectAccessReviewer', () => {
  let api: FakeApiServer;
  let nowMs = 0;
  let down = false;

  beforeAll(async () => {
    api = await startFakeApiServer((request, response) => {
      if (down)
        return sendJson(
          response,
          500,
          apiStatus(500, 'InternalError', 'etcdserver: request timed out'),
        );
      const spec = (request.body as { spec: { user: string } }).spec;
      sendJson(response, 201, {
        ...(request.body as object),
        status:
          spec.user === hpa.user
            ? { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding' }
            : { allowed: false, reason: 'no RBAC policy matched' },
      });
    });
  });

  afterAll(() => api.close());

  beforeEach(() => {
    api.requests.length = 0;
    down = false;
  });

  const reviewer = () =>
    subjectAccessReviewer(api.connection, { now: () => nowMs });

  it('posts the review and caches allowed and denied decisions for 10 s', async () => {
    const authorize = reviewer();
    const stranger = { ...hpa, user: 'alice', groups: [] };
    expect(await authorize(hpa, podsMetric)).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding',
    });
    expect(await authorize(stranger, podsMetric)).toEqual({
      allowed: false,
      reason: 'no RBAC policy matched',
    });
    await authorize(hpa, podsMetric);
    await authorize(stranger, podsMetric);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[0]).toMatchObject({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: subjectAccessReviewBody(hpa, podsMetric),
    });
    // Another question is another review.
    await authorize(hpa, {
      resource: { ...podsMetric.resource, namespace: 'other' },
    } as RequestAttributes);
    expect(api.requests).toHaveLength(3);
    nowMs += 10_000;
    await authorize(hpa, podsMetric);
    expect(api.requests).toHaveLength(4);
  });

  it('allows probes and system:masters without asking', async () => {
    const authorize = reviewer();
    const anyone = { ...hpa, user: 'alice', groups: [] };
    for (const path of ['/healthz', '/readyz/log', '/livez'])
      expect(
        (await authorize(anyone, { nonResource: { path, verb: 'get' } }))
          .allowed,
      ).toBe(true);
    expect(
      (
        await authorize(
          {
            ...anyone,
            user: 'system:kube-aggregator',
            groups: ['system:masters'],
          },
          podsMetric,
        )
      ).allowed,
    ).toBe(true);
    expect(api.requests).toHaveLength(0);
    await authorize(anyone, {
      nonResource: { path: '/healthzz', verb: 'get' },
    });
    expect(api.requests).toHaveLength(1);
  });

  it('rejects, uncached, when the review cannot be made', async () => {
    down = true;
    const authorize = reviewer();
    await expect(authorize(hpa, podsMetric)).rejects.toThrow(
      'SubjectAccessReview failed: HTTP 500 InternalError: etcdserver: request timed out',
    );
    down = false;
    expect((await authorize(hpa, podsMetric)).allowed).toBe(true);
  });
});
