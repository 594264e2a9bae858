import {
  startMetricsAdapter,
  type MetricsAdapter,
} from '../harness/adapter-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { apiServerGet } from '../harness/raw-get.ts';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../harness/otlp-receiver.ts';
import { waitFor } from '../harness/wait.ts';
import { ON_FAKE_NODES } from '../harness/workloads.ts';
import {
  deleteWebhookConfiguration,
  startWebhook,
  waitForRegistration,
  webhookCertificates,
} from '../harness/webhook-process.ts';

const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('serving-otel');

/** Export soon after each request rather than every 5 s (the default). */
const OTEL_ENV = (endpoint: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_BSP_SCHEDULE_DELAY: '200',
});

function spanNamed(
  receiver: OtlpReceiver,
  accept: (span: ReceivedSpan) => boolean,
  description: string,
): Promise<ReceivedSpan> {
  return waitFor(
    description,
    async () => receiver.spans().find(accept),
    { timeoutMs: 30_000 },
    async () =>
      `spans ${JSON.stringify(receiver.spans().map((span) => span.name))}, errors ${JSON.stringify(receiver.errors())}`,
  );
}

describeLocal(
  'the webhook and the adapter export a span per request over OTLP',
  () => {
    let receiver: OtlpReceiver;
    let adapter: MetricsAdapter | undefined;

    beforeAll(async () => {
      await installTandemCrds(kube);
      receiver = await startOtlpReceiver();
    });
    afterAll(async () => {
      await adapter?.stop();
      await stopAllApps();
      await deleteWebhookConfiguration(kube);
      await receiver?.close();
    });

    it('sends an admission.review span with the namespace, pod and outcome', async () => {
      const webhook = await startWebhook({
        kubeconfig: clusterKubeconfig(),
        certificates: await webhookCertificates(),
        extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
        env: OTEL_ENV(receiver.endpoint),
      });
      await waitForRegistration(webhook);
      const namespace = currentNamespace();
      await kube.core.createNamespacedPod({
        namespace,
        body: {
          metadata: { name: 'traced' },
          spec: {
            ...ON_FAKE_NODES,
            containers: [
              { name: 'app', image: 'registry.invalid/tandem-e2e:1' },
            ],
          },
        },
      });
      const span = await spanNamed(
        receiver,
        (candidate) =>
          candidate.name === 'admission.review' &&
          candidate.attributes['k8s.namespace.name'] === namespace,
        `an admission.review span for a pod of ${namespace}`,
      );
      expect(span.resource['service.name']).toBe('tandem-admission-webhook');
      expect(span.attributes).toMatchObject({
        'tandem.admission.resource': 'Pod',
        'tandem.admission.outcome': 'skipped',
        'k8s.pod.name': 'traced',
        'http.response.status_code': 200,
      });
    });

    it('sends a custom_metrics span for a metric read, with the metric and namespace', async () => {
      adapter = await startMetricsAdapter(kube, clusterKubeconfig(), [], {
        env: OTEL_ENV(receiver.endpoint),
      });
      const namespace = currentNamespace();
      // Through the aggregation layer, as the HPA controller reads it.
      const read = await apiServerGet(
        kube.config,
        `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${namespace}/pods/*/cpu_usage`,
      );
      expect(read.status).toBe(200);
      const span = await spanNamed(
        receiver,
        (candidate) =>
          candidate.name === 'custom_metrics.pods' &&
          candidate.attributes['k8s.namespace.name'] === namespace,
        `a custom_metrics.pods span for ${namespace}`,
      );
      expect(span.resource['service.name']).toBe('tandem-metrics-adapter');
      expect(span.attributes).toMatchObject({
        'tandem.metric.name': 'cpu_usage',
        // The pod of the webhook's test may or may not be Ready and measured by now.
        'tandem.metric.items': (read.body as { items: unknown[] }).items.length,
        'http.response.status_code': 200,
      });
    });
  },
);
