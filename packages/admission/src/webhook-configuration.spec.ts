import { webhookConfiguration } from './webhook-configuration.js';

const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('webhookConfiguration', () => {
  it("builds upstream's registration for the service", () => {
    expect(
      webhookConfiguration({
        caBundlePem: pem,
        timeoutSeconds: 30,
        failurePolicyFail: false,
        labels: { team: 'autoscaling' },
        ignoredNamespaces: ['kube-system', 'kube-public'],
        client: { service: { namespace: 'tandem', name: 'vpa-webhook' } },
      }),
    ).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'vpa-webhook-config', labels: { team: 'autoscaling' } },
      webhooks: [
        {
          name: 'vpa.k8s.io',
          admissionReviewVersions: ['v1'],
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['pods'],
            },
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: ['autoscaling.k8s.io'],
              apiVersions: ['*'],
              resources: ['verticalpodautoscalers'],
            },
          ],
          clientConfig: {
            service: { namespace: 'tandem', name: 'vpa-webhook', path: '/' },
            caBundle: Buffer.from(pem).toString('base64'),
          },
          sideEffects: 'None',
          failurePolicy: 'Ignore',
          timeoutSeconds: 30,
          namespaceSelector: {
            matchExpressions: [
              {
                key: 'kubernetes.io/metadata.name',
                operator: 'NotIn',
                values: ['kube-system', 'kube-public'],
              },
            ],
          },
          matchPolicy: 'Equivalent',
          reinvocationPolicy: 'Never',
        },
      ],
    });
  });

  it('registers by URL, with Fail, a port-less service never appears', () => {
    const configuration = webhookConfiguration({
      caBundlePem: pem,
      timeoutSeconds: 10,
      failurePolicyFail: true,
      labels: {},
      ignoredNamespaces: [''],
      client: { url: 'https://vpa.example:8000' },
    }) as { metadata: object; webhooks: [Record<string, unknown>] };
    expect(configuration.metadata).toEqual({ name: 'vpa-webhook-config' });
    expect(configuration.webhooks[0]).toMatchObject({
      clientConfig: {
        url: 'https://vpa.example:8000',
        caBundle: Buffer.from(pem).toString('base64'),
      },
      failurePolicy: 'Fail',
      timeoutSeconds: 10,
    });
  });

  it('sets the service port when given', () => {
    const configuration = webhookConfiguration({
      caBundlePem: pem,
      timeoutSeconds: 30,
      failurePolicyFail: false,
      labels: {},
      ignoredNamespaces: [],
      client: { service: { namespace: 'ns', name: 'svc', port: 8443 } },
    }) as { webhooks: [{ clientConfig: object }] };
    expect(configuration.webhooks[0].clientConfig).toMatchObject({
      service: { namespace: 'ns', name: 'svc', path: '/', port: 8443 },
    });
  });

  it('keeps upstream\'s quirk: nothing ignored means NotIn [""], and the object namespace is unused', () => {
    const configuration = webhookConfiguration({
      caBundlePem: pem,
      timeoutSeconds: 30,
      failurePolicyFail: false,
      labels: {},
      ignoredNamespaces: [],
      objectNamespace: 'team-a',
      client: { service: { namespace: 'ns', name: 'svc' } },
    }) as { webhooks: [{ namespaceSelector: object }] };
    expect(configuration.webhooks[0].namespaceSelector).toEqual({
      matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [''] },
      ],
    });
  });

  it('names its owner only when given, so the garbage collector deletes it with the owner', () => {
    const options = {
      caBundlePem: pem,
      timeoutSeconds: 30,
      failurePolicyFail: false,
      labels: { team: 'autoscaling' },
      ignoredNamespaces: [],
      client: { service: { namespace: 'ns', name: 'svc' } },
    };
    const owner = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: 'tandem-admission-webhook-registration',
      uid: '6f1c3a9e-0d2b-4c55-9a71-2b8f0e4d7c10',
    };
    const metadata = (configuration: object) =>
      (configuration as { metadata: object }).metadata;
    expect(metadata(webhookConfiguration({ ...options, owner }))).toEqual({
      name: 'vpa-webhook-config',
      labels: { team: 'autoscaling' },
      ownerReferences: [owner],
    });
    expect(metadata(webhookConfiguration(options))).toEqual({
      name: 'vpa-webhook-config',
      labels: { team: 'autoscaling' },
    });
  });
});
