import type {
  V1Container,
  V1EnvVar,
  V1ObjectMeta,
  V1Pod,
  V1PodSpec,
  V1PodStatus,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import { originalResourcesAnnotation } from '@tandem/admission';
import { PodAnnotation } from '@tandem/vpa-api';
import { managedFieldsEntry } from './managed-fields.js';

/** How many objects the cluster holds; pods are spread evenly over the ReplicaSets. */
export interface ClusterShape {
  pods: number;
  namespaces: number;
  replicaSets: number;
}

const CREATED = new Date('2026-11-02T08:14:03Z');
const STARTED = new Date('2026-11-02T08:14:09Z');
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Pod `index` of a cluster of `shape`, as a real one reads from the API server: owned by its
 * ReplicaSet, 5-8 labels, a few annotations (kubectl's last-applied on every fourth,
 * Tandem's original resources on every third), an application container and a sidecar with
 * 10 environment variables, probes, mounts and resources each, a Running and Ready status,
 * and the managedFields of kubectl, kube-controller-manager and the kubelet. Made on demand
 * from the index alone, so a cluster of any size costs nothing until it is listed.
 */
export function podAt(shape: ClusterShape, index: number): V1Pod {
  const set = replicaSetIndexOf(shape, index);
  const { namespace, app, replicaSet } = names(shape, set);
  const name = `${replicaSet}-${suffix(index)}`;
  const spec: V1PodSpec = {
    ...templateSpec(app, index),
    nodeName: `node-${index % 1000}`,
    tolerations: ['not-ready', 'unreachable'].map((taint) => ({
      key: `node.kubernetes.io/${taint}`,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    })),
  };
  const annotations: Record<string, string> = {
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9090',
    'kubectl.kubernetes.io/default-container': 'app',
  };
  if (index % 3 === 0)
    annotations[PodAnnotation.originalResources] = originalResourcesAnnotation({
      spec: { containers: spec.containers.map(asTandemContainer) },
    });
  const kubectlAnnotations: Record<string, string> = {
    'team.example/on-call': `team-${set % 40}@example.com`,
  };
  if (index % 4 === 0)
    kubectlAnnotations[LAST_APPLIED] = lastApplied(namespace, app, spec);
  const metadata: V1ObjectMeta = {
    name,
    generateName: `${replicaSet}-`,
    namespace,
    uid: uid('pod', index),
    resourceVersion: String(100_000 + index),
    creationTimestamp: CREATED,
    labels: labels(app, index),
    annotations: { ...annotations, ...kubectlAnnotations },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: replicaSet,
        uid: uid('rs', set),
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
  const status = podStatus(index, spec.containers);
  metadata.managedFields = [
    managedFieldsEntry('kube-controller-manager', CREATED, {
      metadata: {
        generateName: metadata.generateName,
        labels: metadata.labels,
        annotations,
        ownerReferences: metadata.ownerReferences,
      },
      spec,
    }),
    managedFieldsEntry('kubectl-annotate', STARTED, {
      metadata: { annotations: kubectlAnnotations },
    }),
    managedFieldsEntry('kubelet', STARTED, { status }, 'status'),
  ];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status };
}

/** ReplicaSet `index`: a Deployment's, with the whole pod template its pods were made from. */
export function replicaSetAt(shape: ClusterShape, index: number): V1ReplicaSet {
  const { namespace, app, replicaSet } = names(shape, index);
  const replicas = podsOf(shape, index);
  const podLabels = labels(app, index);
  const metadata: V1ObjectMeta = {
    name: replicaSet,
    namespace,
    uid: uid('rs', index),
    resourceVersion: String(50_000 + index),
    generation: 1,
    creationTimestamp: CREATED,
    labels: podLabels,
    annotations: {
      'deployment.kubernetes.io/desired-replicas': String(replicas),
      'deployment.kubernetes.io/max-replicas': String(replicas + 1),
      'deployment.kubernetes.io/revision': '3',
    },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: app,
        uid: uid('deploy', index),
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
  const spec = {
    replicas,
    selector: {
      matchLabels: { app, 'pod-template-hash': TEMPLATE_HASH },
    },
    template: {
      metadata: { labels: podLabels },
      spec: templateSpec(app, index),
    },
  };
  const status = {
    replicas,
    fullyLabeledReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    observedGeneration: 1,
  };
  metadata.managedFields = [
    managedFieldsEntry('kube-controller-manager', CREATED, {
      metadata: {
        annotations: metadata.annotations,
        labels: metadata.labels,
        ownerReferences: metadata.ownerReferences,
      },
      spec,
    }),
    managedFieldsEntry(
      'kube-controller-manager',
      STARTED,
      { status },
      'status',
    ),
  ];
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata, spec, status };
}

const TEMPLATE_HASH = '7d9f8c6b5';

/** The indexes of the pods in `namespace` (`team-<n>`), in order. */
export function podIndexesOf(shape: ClusterShape, namespace: string): number[] {
  const indexes: number[] = [];
  const first = Number(namespace.replace(/^team-/, ''));
  for (let set = first; set < shape.replicaSets; set += shape.namespaces)
    for (
      let pod = firstPodOf(shape, set);
      pod < firstPodOf(shape, set + 1);
      pod += 1
    )
      indexes.push(pod);
  return indexes;
}

function replicaSetIndexOf(shape: ClusterShape, pod: number): number {
  return Math.floor((pod * shape.replicaSets) / shape.pods);
}

/** The first pod of ReplicaSet `set`: pods are spread evenly, in order. */
function firstPodOf(shape: ClusterShape, set: number): number {
  return Math.ceil((set * shape.pods) / shape.replicaSets);
}

function podsOf(shape: ClusterShape, set: number): number {
  return firstPodOf(shape, set + 1) - firstPodOf(shape, set);
}

function names(
  shape: ClusterShape,
  set: number,
): { namespace: string; app: string; replicaSet: string } {
  const app = `service-${set}`;
  return {
    namespace: `team-${set % shape.namespaces}`,
    app,
    replicaSet: `${app}-${TEMPLATE_HASH}`,
  };
}

/** 5 to 8 labels: the selector's, the recommended app.kubernetes.io ones, and a team. */
function labels(app: string, index: number): Record<string, string> {
  const all: [string, string][] = [
    ['app', app],
    ['pod-template-hash', TEMPLATE_HASH],
    ['app.kubernetes.io/name', app],
    ['app.kubernetes.io/instance', `${app}-production`],
    ['app.kubernetes.io/version', '1.42.3'],
    ['app.kubernetes.io/component', 'backend'],
    ['app.kubernetes.io/part-of', 'storefront'],
    ['team.example/cost-center', `cc-${index % 97}`],
  ];
  return Object.fromEntries(all.slice(0, 5 + (index % 4)));
}

function templateSpec(app: string, index: number): V1PodSpec {
  return {
    containers: [appContainer(app, index), sidecar()],
    volumes: [
      {
        name: 'config',
        configMap: { name: `${app}-config`, defaultMode: 420 },
      },
      { name: 'tls', secret: { secretName: `${app}-tls`, defaultMode: 420 } },
      { name: 'tmp', emptyDir: {} },
      {
        name: `kube-api-access-${suffix(index)}`,
        projected: {
          defaultMode: 420,
          sources: [
            {
              serviceAccountToken: { expirationSeconds: 3607, path: 'token' },
            },
            {
              configMap: {
                name: 'kube-root-ca.crt',
                items: [{ key: 'ca.crt', path: 'ca.crt' }],
              },
            },
          ],
        },
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: app,
    serviceAccount: app,
    securityContext: { runAsNonRoot: true, fsGroup: 2000 },
    schedulerName: 'default-scheduler',
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  };
}

function appContainer(app: string, index: number): V1Container {
  return {
    name: 'app',
    image: `registry.example/storefront/${app}:1.42.3`,
    args: ['--config=/etc/app/config.yaml', '--log-format=json'],
    ports: [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    env: [
      'LOG_LEVEL=info',
      'HTTP_PORT=8080',
      'METRICS_PORT=9090',
      `DATABASE_URL=postgres://${app}.db.svc:5432/${app}`,
      `CACHE_URL=redis://${app}-cache:6379/0`,
      'OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector.observability:4317',
      `OTEL_SERVICE_NAME=${app}`,
    ]
      .map(variable)
      .concat(
        fieldRef('POD_NAME', 'metadata.name'),
        fieldRef('POD_NAMESPACE', 'metadata.namespace'),
        {
          name: 'API_TOKEN',
          valueFrom: { secretKeyRef: { name: `${app}-secrets`, key: 'token' } },
        },
      ),
    resources: {
      requests: { cpu: `${100 + (index % 5) * 50}m`, memory: '256Mi' },
      limits: { cpu: '1', memory: '512Mi' },
    },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/app', readOnly: true },
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
      {
        name: `kube-api-access-${suffix(index)}`,
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        readOnly: true,
      },
    ],
    livenessProbe: httpProbe('/healthz', 8080, 10),
    readinessProbe: httpProbe('/readyz', 8080, 5),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
  };
}

function sidecar(): V1Container {
  return {
    name: 'sidecar',
    image: 'registry.example/mesh/proxy:1.28.1',
    args: ['proxy', 'sidecar', '--concurrency=2', '--log-level=warning'],
    ports: [{ name: 'proxy-admin', containerPort: 15000, protocol: 'TCP' }],
    env: [
      'PROXY_CONFIG={}',
      'ISTIO_META_CLUSTER_ID=production-eu-1',
      'ISTIO_META_MESH_ID=storefront',
      'TRUST_DOMAIN=cluster.local',
      'PILOT_CERT_PROVIDER=istiod',
      'CA_ADDR=istiod.istio-system.svc:15012',
      'ISTIO_META_INTERCEPTION_MODE=REDIRECT',
    ]
      .map(variable)
      .concat(
        fieldRef('POD_NAME', 'metadata.name'),
        fieldRef('POD_NAMESPACE', 'metadata.namespace'),
        fieldRef('INSTANCE_IP', 'status.podIP'),
      ),
    resources: {
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    },
    volumeMounts: [
      { name: 'tls', mountPath: '/etc/istio/proxy', readOnly: true },
      { name: 'tmp', mountPath: '/var/lib/istio/data' },
    ],
    readinessProbe: httpProbe('/healthz/ready', 15021, 15),
    livenessProbe: httpProbe('/healthz/ready', 15021, 30),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
}

function variable(text: string): V1EnvVar {
  const at = text.indexOf('=');
  return { name: text.slice(0, at), value: text.slice(at + 1) };
}

function fieldRef(name: string, fieldPath: string): V1EnvVar {
  return { name, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } };
}

function httpProbe(path: string, port: number, periodSeconds: number) {
  return {
    httpGet: { path, port, scheme: 'HTTP' },
    initialDelaySeconds: 5,
    periodSeconds,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  };
}

function podStatus(
  index: number,
  containers: readonly V1Container[],
): V1PodStatus {
  const ip = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  return {
    phase: 'Running',
    conditions: [
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: STARTED,
    })),
    hostIP: `192.168.${(index >> 8) & 255}.${index & 255}`,
    hostIPs: [{ ip: `192.168.${(index >> 8) & 255}.${index & 255}` }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: CREATED,
    qosClass: 'Burstable',
    containerStatuses: containers.map((container) => ({
      name: container.name,
      state: { running: { startedAt: STARTED } },
      lastState: {},
      ready: true,
      restartCount: index % 7 === 0 ? 1 : 0,
      image: container.image ?? '',
      imageID: `${container.image?.split(':')[0] ?? ''}@sha256:${uid('image', index).replace(/-/g, '')}${'0'.repeat(32)}`,
      containerID: `containerd://${uid(container.name, index).replace(/-/g, '')}${'f'.repeat(32)}`,
      started: true,
      allocatedResources: container.resources?.requests,
      volumeMounts: container.volumeMounts?.map(({ name, mountPath }) => ({
        name,
        mountPath,
      })),
    })),
  };
}

/** What `kubectl apply` recorded: the Deployment's manifest as the user wrote it. */
function lastApplied(namespace: string, app: string, spec: V1PodSpec): string {
  return `${JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { annotations: {}, name: app, namespace },
    spec: {
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          containers: spec.containers.map(
            ({ name, image, ports, env, resources }) => ({
              name,
              image,
              ports,
              env,
              resources,
            }),
          ),
        },
      },
    },
  })}\n`;
}

/** A Tandem `Container` for the annotation writer: its resources as declared. */
function asTandemContainer(container: V1Container) {
  return {
    name: container.name,
    resources: {
      requests: container.resources?.requests ?? {},
      limits: container.resources?.limits ?? {},
    },
  };
}

/** A stable, UID-shaped string for object `index` of `kind`. */
function uid(kind: string, index: number): string {
  const hex = (index * 2654435761 + kind.length * 40503)
    .toString(16)
    .padStart(12, '0')
    .slice(-12);
  const tag = [...kind].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return `${tag.toString(16).padStart(8, '0').slice(-8)}-4b1d-4c2a-9e3f-${hex}`;
}

function suffix(index: number): string {
  return (index * 7919 + 46656).toString(36).slice(-5);
}
