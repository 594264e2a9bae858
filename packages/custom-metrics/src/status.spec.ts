import { metricNotFoundMessage, status } from './status.js';

describe('status', () => {
  it('is a metav1.Status failure with the HTTP code', () => {
    expect(
      status(
        404,
        'NotFound',
        'the server could not find the metric foo for pods',
      ),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the metric foo for pods',
      reason: 'NotFound',
      code: 404,
    });
  });

  it('carries details when given', () => {
    expect(
      status(403, 'Forbidden', 'no', {
        group: 'custom.metrics.k8s.io',
        kind: 'pods',
      }),
    ).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      details: { group: 'custom.metrics.k8s.io', kind: 'pods' },
    });
  });

  it('leaves details out when not given', () => {
    expect(status(503, 'ServiceUnavailable', 'down')).not.toHaveProperty(
      'details',
    );
  });
});

describe('metricNotFoundMessage', () => {
  it.each<[Parameters<typeof metricNotFoundMessage>, string]>([
    [
      ['cpu_foo', 'pods'],
      'the server could not find the metric cpu_foo for pods',
    ],
    [
      ['cpu_foo', 'pods', 'web-1'],
      'the server could not find the metric cpu_foo for pods web-1',
    ],
    [
      ['cpu_foo', 'pods', '*', 'app=web'],
      'the server could not find the metric cpu_foo for pods * with selector app=web',
    ],
    [
      ['cpu_foo', 'deployments.apps', undefined, 'app=web'],
      'the server could not find the metric cpu_foo for deployments.apps with selector app=web',
    ],
    [
      ['cpu_foo', 'pods', '', ''],
      'the server could not find the metric cpu_foo for pods',
    ],
  ])('words %j as custom-metrics-apiserver does', (args, message) => {
    expect(metricNotFoundMessage(...args)).toBe(message);
  });
});
