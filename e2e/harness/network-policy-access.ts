import type {
  V1ContainerPort,
  V1NetworkPolicy,
  V1NetworkPolicyPeer,
  V1NetworkPolicyPort,
} from '@kubernetes/client-node';
import { compileLabelSelector, type LabelSelector } from '@tandem/vpa-api';

/** A pod as NetworkPolicies see it: its labels, and its containers' ports (named ports). */
export interface PolicyTarget {
  labels: Record<string, string>;
  ports: readonly V1ContainerPort[];
}

/**
 * Who may open a TCP connection to one port of a pod, under NetworkPolicy v1's rules: a
 * pod no Ingress policy selects is not isolated (`unrestricted`); a selected pod admits
 * the union of the rules of every policy selecting it whose ports take in the port. A rule
 * without `from` admits every source (`anySource`); otherwise its peers are listed.
 * Traffic from the pod's own node is always admitted and not modelled here.
 */
export type IngressAccess =
  | { kind: 'unrestricted' }
  | { kind: 'isolated'; anySource: boolean; peers: V1NetworkPolicyPeer[] };

export function ingressAccess(
  policies: readonly V1NetworkPolicy[],
  target: PolicyTarget,
  port: number,
): IngressAccess {
  const selecting = policies.filter(
    (policy) =>
      appliesToIngress(policy) &&
      compileLabelSelector(policy.spec?.podSelector as LabelSelector).matches(
        target.labels,
      ),
  );
  if (selecting.length === 0) return { kind: 'unrestricted' };
  const rules = selecting
    .flatMap((policy) => policy.spec?.ingress ?? [])
    .filter(
      (rule) =>
        rule.ports === undefined ||
        rule.ports.length === 0 ||
        rule.ports.some((policyPort) => takesIn(policyPort, target, port)),
    );
  return {
    kind: 'isolated',
    anySource: rules.some(
      (rule) => rule._from === undefined || rule._from.length === 0,
    ),
    peers: rules.flatMap((rule) => rule._from ?? []),
  };
}

/** Without policyTypes a policy is for Ingress (and for Egress only with egress rules). */
function appliesToIngress(policy: V1NetworkPolicy): boolean {
  const types = policy.spec?.policyTypes;
  return types === undefined || types.includes('Ingress');
}

function takesIn(
  policyPort: V1NetworkPolicyPort,
  target: PolicyTarget,
  port: number,
): boolean {
  if ((policyPort.protocol ?? 'TCP') !== 'TCP') return false;
  const { port: wanted, endPort } = policyPort;
  if (wanted === undefined) return true;
  if (typeof wanted === 'string')
    return target.ports.some(
      (containerPort) =>
        containerPort.name === wanted &&
        (containerPort.protocol ?? 'TCP') === 'TCP' &&
        containerPort.containerPort === port,
    );
  return endPort === undefined
    ? wanted === port
    : wanted <= port && port <= endPort;
}
