import { randomBytes } from 'node:crypto';
import {
  AdmissionregistrationV1Api,
  RbacAuthorizationV1Api,
  type V1MutatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { stopAllApps, type AppProcess } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpStatusOf, kubeClients } from '../harness/kube.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { waitFor } from '../harness/wait.ts';
import {
  deleteWebhookConfiguration,
  startWebhook,
  waitForRegistration,
  webhookCertificates,
} from '../harness/webhook-process.ts';

// Removing Tandem removes the configuration its webhook registered for itself (ADR 0019):
// the configuration names a ClusterRole of the install as its owner, and the running
// kube-controller-manager's garbage collector deletes it once that ClusterRole is gone.
// The webhook runs as a host process, as in the admission-webhook suite.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const CONFIGURATION = 'vpa-webhook-config';
const kube = kubeClients();
const registrations = kube.config.makeApiClient(AdmissionregistrationV1Api);
const rbac = kube.config.makeApiClient(RbacAuthorizationV1Api);
// Cluster-scoped, so a name of this run's own.
const ownerName = `tandem-e2e-registration-${randomBytes(3).toString('hex')}`;

async function startWebhookOwnedBy(clusterRole: string): Promise<AppProcess> {
  const webhook = await startWebhook({
    kubeconfig: clusterKubeconfig(),
    certificates: await webhookCertificates(),
    extraArgs: [
      '--ignored-vpa-object-namespaces=kube-system',
      `--webhook-owner-cluster-role=${clusterRole}`,
    ],
  });
  await waitForRegistration(webhook);
  return webhook;
}

/** The registered configuration, or undefined once it is gone. */
async function registeredConfiguration(): Promise<
  V1MutatingWebhookConfiguration | undefined
> {
  try {
    return await registrations.readMutatingWebhookConfiguration({
      name: CONFIGURATION,
    });
  } catch (error) {
    if (httpStatusOf(error) === 404) return undefined;
    throw error;
  }
}

async function deleteOwner(): Promise<void> {
  await rbac.deleteClusterRole({ name: ownerName }).catch((error: unknown) => {
    if (httpStatusOf(error) !== 404) throw error;
  });
}

describeLocal(
  'the webhook’s registration, owned by --webhook-owner-cluster-role',
  () => {
    beforeAll(async () => {
      await installTandemCrds(kube);
    });

    afterEach(async () => {
      await stopAllApps();
      await deleteWebhookConfiguration(kube);
    });

    afterAll(deleteOwner);

    it('names the ClusterRole as its owner and is deleted with it by the garbage collector', async () => {
      const owner = await rbac.createClusterRole({
        body: { metadata: { name: ownerName }, rules: [] },
      });
      const webhook = await startWebhookOwnedBy(ownerName);
      expect(
        (await registeredConfiguration())?.metadata?.ownerReferences,
      ).toEqual([
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          name: ownerName,
          uid: owner.metadata?.uid,
        },
      ]);

      await rbac.deleteClusterRole({ name: ownerName });
      await waitFor(
        `the garbage collector to delete ${CONFIGURATION} after its owner ClusterRole`,
        async () =>
          (await registeredConfiguration()) === undefined ? true : undefined,
        { timeoutMs: 30_000 },
        async () =>
          `${CONFIGURATION} still exists; webhook output tail:\n${webhook.tail(10)}`,
      );
    });

    it('registers without an owner, and says so, when the ClusterRole does not exist', async () => {
      const webhook = await startWebhookOwnedBy(ownerName);
      const configuration = await registeredConfiguration();
      expect(configuration?.webhooks?.[0]?.name).toBe('vpa.k8s.io');
      expect(configuration?.metadata?.ownerReferences).toBeUndefined();
      expect(
        webhook
          .entries()
          .filter((entry) =>
            String(entry.msg).startsWith(
              `--webhook-owner-cluster-role=${ownerName}: it does not exist (404)`,
            ),
          ),
      ).toHaveLength(1);
    });
  },
);
