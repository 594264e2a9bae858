import { join } from 'node:path';
import {
  dumpYaml,
  type KubernetesObject,
  type V1APIService,
  type V1ClusterRoleBinding,
  type V1Deployment,
  type V1MutatingWebhookConfiguration,
  type V1PolicyRule,
  type V1Role,
  type V1Service,
} from '@kubernetes/client-node';
import { webhookConfiguration } from '@tandem/admission';
import { installCertManagerCrds } from '../harness/cert-manager.ts';
import { kubeClients } from '../harness/kube.ts';
import {
  findObject,
  kubectl,
  objectsOfKind,
  renderKustomization,
} from '../harness/kustomize.ts';
import { renderOverlay, type Overlay } from '../harness/overlay.ts';
import { kubectlName, serverDryRun } from '../harness/server-dry-run.ts';
import { DEPLOY_DIR, installTandemCrds } from '../harness/manifests.ts';

/** deploy/cert-manager, used as its comment says: an overlay of deploy/ with the component. */
const COMPONENT_DIR = join(DEPLOY_DIR, 'cert-manager');
const NAMESPACE = 'tandem-system';
const INJECT_CA_FROM = 'cert-manager.io/inject-ca-from';
const WEBHOOK = {
  deployment: 'tandem-admission-webhook',
  container: 'admission-webhook',
};
const ADAPTER = {
  deployment: 'tandem-metrics-adapter',
  container: 'metrics-adapter',
};

interface IssuerRef {
  group?: string;
  kind?: string;
  name: string;
}
interface Certificate extends KubernetesObject {
  spec: {
    secretName: string;
    isCA?: boolean;
    dnsNames?: string[];
    duration: string;
    renewBefore: string;
    privateKey?: { rotationPolicy?: string };
    issuerRef: IssuerRef;
  };
}
interface Issuer extends KubernetesObject {
  spec: { selfSigned?: object; ca?: { secretName: string } };
}

/** The Issuer an issuerRef names (cert-manager's group and an Issuer, not a ClusterIssuer). */
function issuerOf(objects: KubernetesObject[], ref: IssuerRef): Issuer {
  expect({ group: ref.group, kind: ref.kind }).toEqual({
    group: 'cert-manager.io',
    kind: 'Issuer',
  });
  return findObject<Issuer>(objects, 'Issuer', ref.name);
}

/** The Certificate an inject-ca-from annotation (`<namespace>/<name>`) names. */
function injectedFrom(
  objects: KubernetesObject[],
  object: KubernetesObject,
): Certificate {
  const source = object.metadata?.annotations?.[INJECT_CA_FROM] ?? '';
  const [namespace, name] = source.split('/');
  expect(namespace).toBe(NAMESPACE);
  return findObject<Certificate>(objects, 'Certificate', name ?? '');
}

/** Hours of a Go duration as cert-manager's manifests write it (`2160h`). */
function hours(duration: string): number {
  const match = /^(\d+)h$/.exec(duration);
  if (match === null)
    throw new Error(`not a whole number of hours: ${duration}`);
  return Number(match[1]);
}

function container(
  objects: KubernetesObject[],
  { deployment, container: name }: typeof WEBHOOK,
) {
  const found = findObject<V1Deployment>(
    objects,
    'Deployment',
    deployment,
  ).spec?.template.spec?.containers.find((each) => each.name === name);
  if (found === undefined)
    throw new Error(`no container ${name} in ${deployment}`);
  return found;
}

function argsOf(objects: KubernetesObject[], app: typeof WEBHOOK): string[] {
  return container(objects, app).args ?? [];
}

/** The Service the API server calls for a webhook configuration or an APIService. */
function serviceCalledBy(
  object: KubernetesObject,
): { namespace?: string; name?: string } | undefined {
  return object.kind === 'APIService'
    ? (object as V1APIService).spec?.service
    : (object as V1MutatingWebhookConfiguration).webhooks?.[0]?.clientConfig
        .service;
}

/** The value of `--<flag>=<value>` in args, if given. */
function flagValue(args: string[], flag: string): string | undefined {
  return args
    .find((arg) => arg.startsWith(`--${flag}=`))
    ?.slice(flag.length + 3);
}

/** Every rule the render's Roles and ClusterRoles grant a tandem-system ServiceAccount. */
function rulesGrantedTo(
  objects: KubernetesObject[],
  serviceAccount: string,
): V1PolicyRule[] {
  return [
    ...objectsOfKind<V1ClusterRoleBinding>(objects, 'ClusterRoleBinding'),
    ...objectsOfKind<V1ClusterRoleBinding>(objects, 'RoleBinding'),
  ]
    .filter((binding) =>
      binding.subjects?.some(
        (subject) =>
          subject.kind === 'ServiceAccount' &&
          subject.name === serviceAccount &&
          subject.namespace === NAMESPACE,
      ),
    )
    .flatMap(
      (binding) =>
        objectsOfKind<V1Role>(objects, binding.roleRef.kind).find(
          (role) =>
            role.metadata?.name === binding.roleRef.name &&
            role.metadata.namespace === binding.metadata?.namespace,
        )?.rules ?? [],
    );
}

/** The resources the rules may touch, as `<group>/<resource>`. */
function resourcesOf(rules: V1PolicyRule[]): string[] {
  return rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).map((resource) => `${group}/${resource}`),
    ),
  );
}

describe('deploy/cert-manager (the cert-manager component) on deploy/, against cert-manager v1 CRDs', () => {
  let base: KubernetesObject[];
  let overlay: Overlay;
  let objects: KubernetesObject[];

  // cert-manager's CRDs for real (so its kinds exist and their schemas validate), with the
  // namespace and Tandem's CRDs, as the manifests suite installs them. No cert-manager
  // controller runs: the renders are checked and dry-run, never issued.
  beforeAll(async () => {
    await installCertManagerCrds();
    await kubectl('apply', '-f', join(DEPLOY_DIR, 'namespace.yaml'));
    await installTandemCrds(kubeClients());
    base = await renderKustomization(DEPLOY_DIR);
    overlay = await renderOverlay({
      resources: [DEPLOY_DIR],
      components: [COMPONENT_DIR],
    });
    objects = overlay.objects;
  }, 300_000);
  afterAll(() => overlay?.remove());

  it('issues one CA from a self-signed Issuer, and the serving certificates from that CA', () => {
    const certificates = objectsOfKind<Certificate>(objects, 'Certificate');
    const cas = certificates.filter((certificate) => certificate.spec.isCA);
    expect(cas).toHaveLength(1);
    const [ca] = cas as [Certificate];
    expect(issuerOf(objects, ca.spec.issuerRef).spec).toEqual({
      selfSigned: {},
    });
    // The CA keeps its key when it renews: the leaves it signed still verify.
    expect(ca.spec.privateKey?.rotationPolicy).toBe('Never');
    const serving = certificates.filter(
      (certificate) => !certificate.spec.isCA,
    );
    expect(
      serving.map((certificate) => certificate.metadata?.name).sort(),
    ).toEqual([WEBHOOK.deployment, ADAPTER.deployment]);
    for (const certificate of serving) {
      expect(issuerOf(objects, certificate.spec.issuerRef).spec).toEqual({
        ca: { secretName: ca.spec.secretName },
      });
      expect(certificate.spec.privateKey?.rotationPolicy).toBe('Always');
    }
    for (const object of [...certificates, ...objectsOfKind(objects, 'Issuer')])
      expect(object.metadata?.namespace).toBe(NAMESPACE);
    // Rotation is cert-manager's: each certificate renews well before it expires.
    for (const { spec } of certificates) {
      expect(hours(spec.renewBefore)).toBeGreaterThan(0);
      expect(hours(spec.renewBefore)).toBeLessThan(hours(spec.duration));
    }
    expect(
      Math.max(...serving.map(({ spec }) => hours(spec.duration))),
    ).toBeLessThan(hours(ca.spec.renewBefore));
  });

  it.each([
    ['MutatingWebhookConfiguration', 'vpa-webhook-config', WEBHOOK],
    ['APIService', 'v1beta2.custom.metrics.k8s.io', ADAPTER],
    ['APIService', 'v1beta1.custom.metrics.k8s.io', ADAPTER],
  ])(
    '%s %s gets the CA of a certificate for the Service it calls, which the Deployment behind it serves',
    (kind, name, app) => {
      const caller = findObject(objects, kind, name);
      const service = serviceCalledBy(caller);
      if (service?.name === undefined)
        throw new Error(`${kind} ${name} calls no Service`);
      const certificate = injectedFrom(objects, caller);
      const host = `${service.name}.${service.namespace}`;
      expect(certificate.spec.dnsNames).toEqual([
        `${host}.svc`,
        `${host}.svc.cluster.local`,
      ]);
      const selector = findObject<V1Service>(objects, 'Service', service.name)
        .spec?.selector;
      const pod = findObject<V1Deployment>(
        objects,
        'Deployment',
        app.deployment,
      ).spec?.template;
      expect(pod?.metadata?.labels).toMatchObject(
        selector ?? { none: 'selector' },
      );
      // cert-manager's Secret under the bootstrap's file names, nothing else writing it.
      expect(pod?.spec?.initContainers ?? []).toEqual([]);
      expect(
        pod?.spec?.volumes?.find((volume) => volume.name === 'tls-certs'),
      ).toEqual({
        name: 'tls-certs',
        secret: {
          secretName: certificate.spec.secretName,
          items: [
            { key: 'tls.crt', path: 'serverCert.pem' },
            { key: 'tls.key', path: 'serverKey.pem' },
            { key: 'ca.crt', path: 'caCert.pem' },
          ],
        },
      });
      expect(container(objects, app).volumeMounts).toContainEqual({
        name: 'tls-certs',
        mountPath: '/etc/tls-certs',
        readOnly: true,
      });
    },
  );

  it('the static webhook configuration is the one the webhook would register, without its caBundle', () => {
    const args = argsOf(objects, WEBHOOK);
    // The flags that shape the registration, as the webhook reads them.
    expect(flagValue(args, 'webhook-labels')).toBeUndefined();
    const expected = webhookConfiguration({
      caBundlePem: '',
      timeoutSeconds: Number(flagValue(args, 'webhook-timeout-seconds') ?? 30),
      failurePolicyFail: args.includes('--webhook-failure-policy-fail'),
      labels: {},
      ignoredNamespaces:
        flagValue(args, 'ignored-vpa-object-namespaces')?.split(',') ?? [],
      client: {
        service: {
          namespace: NAMESPACE,
          name: flagValue(args, 'webhook-service') ?? 'vpa-webhook',
        },
      },
    }) as V1MutatingWebhookConfiguration;
    for (const webhook of expected.webhooks ?? [])
      delete webhook.clientConfig.caBundle;
    const actual = findObject<V1MutatingWebhookConfiguration>(
      objects,
      'MutatingWebhookConfiguration',
      'vpa-webhook-config',
    );
    expect(actual.webhooks).toEqual(expected.webhooks);
  });

  it("the webhook runs with the base's args, but --register-webhook=false and no --certs-secret or registration owner", () => {
    // The owner ClusterRole is the registration's, which the component deletes.
    const dropped =
      /^--(certs-secret|register-webhook|webhook-owner-cluster-role)\b/;
    const args = argsOf(objects, WEBHOOK);
    expect(args).toContain('--register-webhook=false');
    expect(args.filter((arg) => arg !== '--register-webhook=false')).toEqual(
      argsOf(base, WEBHOOK).filter((arg) => !dropped.test(arg)),
    );
    expect(
      args.filter(
        (arg) => arg !== '--register-webhook=false' && dropped.test(arg),
      ),
    ).toEqual([]);
  });

  it("the adapter runs with the base's args, but neither --certs-secret nor --apiservice-ca-file", () => {
    const args = argsOf(objects, ADAPTER);
    expect(args).toEqual(
      argsOf(base, ADAPTER).filter(
        (arg) => !/^--(certs-secret|apiservice-ca-file)\b/.test(arg),
      ),
    );
    expect(
      args.some((arg) => /^--(certs-secret|apiservice-ca-file)\b/.test(arg)),
    ).toBe(false);
  });

  it('neither app keeps the rights only its own certificates needed (registration, caBundle, Secrets)', () => {
    const bootstrapOnly = [
      'admissionregistration.k8s.io/mutatingwebhookconfigurations',
      'apiregistration.k8s.io/apiservices',
      '/secrets',
    ];
    for (const app of [WEBHOOK, ADAPTER]) {
      // The base grants some of them (so the check sees them); the overlay none.
      expect(resourcesOf(rulesGrantedTo(base, app.deployment))).toEqual(
        expect.arrayContaining(['/secrets']),
      );
      expect(
        resourcesOf(rulesGrantedTo(objects, app.deployment)).filter(
          (resource) => bootstrapOnly.includes(resource),
        ),
      ).toEqual([]);
    }
    expect(
      objects.filter(
        (object) =>
          object.metadata?.name === 'tandem-admission-webhook-registration',
      ),
    ).toEqual([]);
    // The webhook keeps its status Lease.
    expect(resourcesOf(rulesGrantedTo(objects, WEBHOOK.deployment))).toContain(
      'coordination.k8s.io/leases',
    );
  });

  it("every object is accepted by the API server, cert-manager's by its CRDs' schemas (server-side dry run)", async () => {
    const documents = (await kubectl('kustomize', overlay.dir))
      .split(/^---$/m)
      .filter((document) => document.trim() !== '');
    const accepted = await serverDryRun(documents, overlay.dir);
    expect(accepted.sort()).toEqual(objects.map(kubectlName).sort());
    expect(accepted).toContain('certificate.cert-manager.io/tandem-ca');
  });

  it('the dry run checks the schemas: a Certificate they refuse is refused', async () => {
    const certificate = findObject<Certificate>(
      objects,
      'Certificate',
      'tandem-ca',
    );
    const refused = dumpYaml({
      ...certificate,
      spec: {
        ...certificate.spec,
        privateKey: { rotationPolicy: 'Sometimes' },
      },
    });
    await expect(serverDryRun([refused], overlay.dir)).rejects.toThrow(
      /spec\.privateKey\.rotationPolicy: Unsupported value: "Sometimes"/,
    );
  });
});
