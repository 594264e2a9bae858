#!/usr/bin/env bash
# Smoke check of a kind cluster (KUBECONFIG): the node is Ready, and a pod of a locally
# built image (never pulled) runs on it, resolves the API Service through the cluster
# DNS and opens a TCP connection to it through kube-proxy's Service rules.
#
# Usage: smoke.sh IMAGE     (an image with node on its PATH, loaded into the cluster)
set -euo pipefail

image=${1:?usage: smoke.sh IMAGE}
log() { printf '[smoke %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

node=$(kubectl get nodes -o jsonpath='{.items[0].metadata.name}')
kubectl wait --for=condition=Ready "node/$node" --timeout=120s >/dev/null
log "node $node Ready"

pod=tandem-smoke
kubectl delete pod "$pod" --ignore-not-found --wait >/dev/null
# The script resolves the Service name with the cluster DNS, then connects to it.
# shellcheck disable=SC2016  # JavaScript, not shell
script='
const dns = require("node:dns"), net = require("node:net");
const name = "kubernetes.default.svc.cluster.local";
dns.lookup(name, (error, address) => {
  if (error) { console.error("DNS:", error.message); process.exit(1); }
  console.log(`DNS ${name} -> ${address}`);
  const socket = net.connect({ host: address, port: 443, timeout: 10000 }, () => {
    console.log(`TCP ${address}:443 connected`); socket.end(); });
  socket.on("timeout", () => { console.error("TCP: timeout"); process.exit(1); });
  socket.on("error", (e) => { console.error("TCP:", e.message); process.exit(1); });
});'
kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $pod
spec:
  nodeName: $node
  restartPolicy: Never
  tolerations: [{ operator: Exists }]
  containers:
    - name: smoke
      image: $image
      imagePullPolicy: Never
      command: ["node", "-e", $(printf '%s' "$script" | node -p 'JSON.stringify(require("fs").readFileSync(0, "utf8"))')]
EOF
if ! kubectl wait --for=jsonpath='{.status.phase}'=Succeeded "pod/$pod" --timeout=180s >/dev/null; then
  log "pod $pod did not succeed"
  kubectl describe pod "$pod" >&2 || true
  kubectl logs "$pod" >&2 || true
  exit 1
fi
kubectl logs "$pod" | sed 's/^/[smoke] /' >&2
kubectl delete pod "$pod" --wait=false >/dev/null
log "passed: $image ran on $node; DNS and Service answer"
