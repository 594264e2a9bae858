#!/usr/bin/env bash
# Prints the manifests of N fake nodes that kwok manages (annotation
# kwok.x-k8s.io/node=fake), with realistic capacity, spread over three zones and
# labelled type=kwok, which is what the suites' pods select. Shared by start.sh
# (local control plane) and e2e/kind/run.sh (kwok inside a kind cluster).
#
# Usage: fake-nodes.sh N    (capacity: TANDEM_NODE_CPU, TANDEM_NODE_MEMORY, TANDEM_NODE_PODS)
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$SCRIPT_DIR/common.sh"

NODES=${1:?usage: fake-nodes.sh N}
[[ $NODES =~ ^[0-9]+$ ]] || { echo "fake-nodes.sh: N must be a number, got '$NODES'" >&2; exit 2; }
NODE_CPU=${TANDEM_NODE_CPU:-8}
NODE_MEMORY=${TANDEM_NODE_MEMORY:-32Gi}
NODE_PODS=${TANDEM_NODE_PODS:-110}

# No address here: kwok's node stage sets InternalIP and the kubelet port to where
# kwok serves the resource metrics that metrics-server scrapes.
for (( i = 0; i < NODES; i++ )); do
  n=kwok-node-$i
  zone=zone-$(( i % 3 ))
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $n
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
    metrics.k8s.io/resource-metrics-path: /metrics/nodes/$n/metrics/resource
  labels:
    kubernetes.io/hostname: $n
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: kwok-${NODE_CPU}cpu
    topology.kubernetes.io/zone: $zone
    type: kwok
status:
  capacity: {cpu: "$NODE_CPU", memory: "$NODE_MEMORY", pods: "$NODE_PODS", ephemeral-storage: 100Gi}
  allocatable: {cpu: "$NODE_CPU", memory: "$NODE_MEMORY", pods: "$NODE_PODS", ephemeral-storage: 100Gi}
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: $TANDEM_K8S_VERSION
    kubeProxyVersion: $TANDEM_K8S_VERSION
    containerRuntimeVersion: kwok://$TANDEM_KWOK_VERSION
    kernelVersion: kwok
    osImage: kwok fake node
YAML
done
