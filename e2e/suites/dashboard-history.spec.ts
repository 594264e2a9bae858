import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { startDashboard } from '../harness/dashboard-process.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  freePort,
  startPrometheus,
  type PrometheusServer,
} from '../harness/prometheus.ts';
import { stopAllApps, type AppProcess } from '../harness/app-process.ts';
import { waitFor } from '../harness/wait.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import { runDeployment } from '../harness/workloads.ts';

// The dashboard runs as a host process next to a host Prometheus.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const DAY_S = 24 * 3600;
/** The CPU usage written three days back: older than the dashboard's memory by far. */
const OLD_USAGE_CORES = 0.35;

const { kube, namespace: currentNamespace } = useTestNamespace('dash-hist');
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);
let prometheus: PrometheusServer | undefined;
let dashboard: AppProcess | undefined;

interface WorkloadAnswer {
  range: string;
  history: { timeMs: number; values: Record<string, number> }[];
  historyMissing: string | null;
}

async function workloadAnswer(range: string): Promise<WorkloadAnswer> {
  const { status, body } = await httpGet(
    `${dashboard?.url}api/workloads/${namespace}/Deployment/web?range=${range}`,
  );
  if (status !== 200) throw new Error(`HTTP ${status}: ${body}`);
  return JSON.parse(body) as WorkloadAnswer;
}

describeLocal('the dashboard with --prometheus-url', () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
  });
  afterAll(async () => {
    await stopAllApps();
    await prometheus?.stop();
  });

  it('exports what it samples, and draws a week from the Prometheus that scraped it and from memory', async () => {
    await runDeployment(kube, namespace, {
      name: 'web',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '128Mi',
      initialUsage: { cpu: '50m', memory: '64Mi' },
    });
    await vpas.createVpa('web', 'web');

    // Three days back, an hour of what an earlier dashboard exported for this workload.
    const start = Math.floor(Date.now() / 1000) - 3 * DAY_S;
    const old = Array.from({ length: 13 }, (_, i): [number, number] => [
      start + i * 300,
      OLD_USAGE_CORES,
    ]);
    const dashboardPort = await freePort();
    prometheus = await startPrometheus(
      [
        {
          name: 'tandem_dashboard_container_cpu_cores',
          labels: {
            namespace,
            kind: 'Deployment',
            workload: 'web',
            container: 'app',
            line: 'usage',
          },
          points: old,
        },
      ],
      { job: 'tandem-dashboard', address: `127.0.0.1:${dashboardPort}` },
    );
    dashboard = await startDashboard({
      kubeconfig: clusterKubeconfig(),
      sampleIntervalSeconds: 1,
      address: `127.0.0.1:${dashboardPort}`,
      extraArgs: [
        `--namespace=${namespace}`,
        `--prometheus-url=${prometheus.url}`,
      ],
    });
    const running = dashboard;
    const server = prometheus;

    // Prometheus scrapes the dashboard's gauge of the declared request.
    const declared = `tandem_dashboard_container_cpu_cores{namespace="${namespace}",workload="web",container="app",line="declared"}`;
    await waitFor(
      `Prometheus to scrape ${declared} from the dashboard`,
      async () => {
        const [series] = await server.queryMatrix('query', {
          query: `${declared}[1m]`,
        });
        return series?.values.at(-1)?.[1] === '0.1' ? true : undefined;
      },
      { timeoutMs: 60_000 },
      async () =>
        `dashboard:\n${running.tail(20)}\nPrometheus:\n${server.logs().slice(-2000)}`,
    );

    const week = await workloadAnswer('7d');
    expect(week.range).toBe('7d');
    expect(week.historyMissing).toBeNull();
    const oldPoints = week.history.filter(
      ({ timeMs }) =>
        timeMs >= start * 1000 && timeMs <= (start + 3600 + 300) * 1000,
    );
    expect(oldPoints.length).toBeGreaterThan(0);
    for (const { values } of oldPoints)
      expect(values).toEqual({ 'app|cpu|usage': OLD_USAGE_CORES * 1000 });
    // The scraped samples: the week's last point holds the declared 100m.
    const recent = week.history.filter(
      ({ timeMs }) => timeMs > Date.now() - 5 * 60_000,
    );
    expect(
      recent.some(({ values }) => values['app|cpu|declared'] === 100),
    ).toBe(true);

    // The page draws the week, the range marked as the one shown.
    const page = await httpGet(
      `${running.url}workloads/${namespace}/Deployment/web?range=7d`,
    );
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/href="\?range=7d"\s+aria-current="page"/);
    expect(page.body).toContain('<figure class="plot">');
    expect(page.body).not.toContain('Older history is missing');

    // A day is memory's alone: one sample a second since the dashboard started.
    const day = await workloadAnswer('24h');
    expect(day.range).toBe('24h');
    expect(
      day.history.every(({ timeMs }) => timeMs > Date.now() - DAY_S * 1000),
    ).toBe(true);

    // Prometheus gone: memory's history, and why the rest is missing.
    await server.stop();
    prometheus = undefined;
    const without = await workloadAnswer('7d');
    expect(without.historyMissing).toMatch(
      new RegExp(`^${server.url}/api/v1/query_range: connect ECONNREFUSED`),
    );
    expect(without.history.length).toBeGreaterThan(0);
    const pageWithout = await httpGet(
      `${running.url}workloads/${namespace}/Deployment/web?range=7d`,
    );
    expect(pageWithout.status).toBe(200);
    expect(pageWithout.body).toContain('Older history is missing');
  });
});
