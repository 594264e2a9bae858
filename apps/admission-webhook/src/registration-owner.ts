import type { V1ClusterRole } from '@kubernetes/client-node';
import type { WebhookConfigurationOwner } from '@tandem/admission';
import { httpStatusOf } from '@tandem/kube';

/** `--webhook-owner-cluster-role`: who owns the registered configuration. */
export interface RegistrationOwnerOptions {
  /** The ClusterRole's name; empty: no owner reference, as upstream. */
  clusterRole: string;
  /** Told, in one sentence, why the configuration is registered without its owner. */
  onUnavailable: (message: string) => void;
}

const UNREADABLE: Readonly<Record<number, string>> = {
  403: 'the webhook may not get it (403)',
  404: 'it does not exist (404)',
};

/**
 * The owner reference to the ClusterRole, read at each registration: its uid is what the
 * garbage collector matches, and it changes when the ClusterRole is re-created (a
 * reinstall). A ClusterRole that is absent or forbidden gives no owner and one
 * `onUnavailable` call: the configuration is registered all the same, as upstream
 * registers it, because a webhook left unregistered would size no pod. Any other error is
 * thrown, so the registration is retried with the others (the API server is not answering).
 */
export async function clusterRoleOwner(
  readClusterRole: (name: string) => Promise<V1ClusterRole>,
  { clusterRole, onUnavailable }: RegistrationOwnerOptions,
): Promise<WebhookConfigurationOwner | undefined> {
  if (clusterRole === '') return undefined;
  let uid: string | undefined;
  try {
    uid = (await readClusterRole(clusterRole)).metadata?.uid;
  } catch (error) {
    const reason = UNREADABLE[httpStatusOf(error) ?? 0];
    if (reason === undefined) throw error;
    onUnavailable(withoutOwner(clusterRole, reason));
    return undefined;
  }
  if (uid === undefined || uid === '') {
    onUnavailable(withoutOwner(clusterRole, 'the API server gave it no uid'));
    return undefined;
  }
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    name: clusterRole,
    uid,
  };
}

function withoutOwner(clusterRole: string, reason: string): string {
  return (
    `--webhook-owner-cluster-role=${clusterRole}: ${reason}; vpa-webhook-config is ` +
    'registered without an owner reference, so removing Tandem will leave it behind'
  );
}
