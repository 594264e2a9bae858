import {
  FLEET_PAGE_ROWS,
  fleetPage,
  workloadPath,
  type FleetView,
} from './fleet-page.js';
import { historyView } from './history-range.js';
import { historyValues } from './history-values.js';
import { escapeHtml } from './html.js';
import type { ObservedEvent, PerContainer } from './observed.js';
import type { HistoryPoint } from './plots.js';
import { recommendedYaml } from './recommended-yaml.js';
import { WorkloadHistory } from './workload-history.js';
import { workloadPage, type PageHistory } from './workload-page.js';
import type { WorkloadSummary } from './workload-summary.js';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';
const OWN_SCRIPT = '<script src="/assets/dashboard.js" defer></script>';

/** Whitespace-free, so the layout Prettier gives html`` templates does not matter. */
const squeeze = (text: string) => text.replace(/\s+/g, '');
const DAY_MS = 24 * 60 * 60_000;

/** The page without its own script tag: what is left must hold no tag a cluster string made. */
function foreignMarkup(page: string): string[] {
  expect(page.split(OWN_SCRIPT)).toHaveLength(2);
  return (
    page
      .split(OWN_SCRIPT)
      .join('')
      .match(/<(script|img)\b/gi) ?? []
  );
}

const resources = (cpu: number, memoryMi: number) => ({
  cpuMillicores: cpu,
  memoryBytes: memoryMi * 1024 * 1024,
});

function summary(overrides: Partial<WorkloadSummary> = {}): WorkloadSummary {
  const containers: PerContainer = {
    app: resources(250, 256),
    sidecar: resources(10, 32),
  };
  return {
    namespace: 'shop',
    kind: 'Deployment',
    name: 'web',
    vpa: {
      name: 'web-vpa',
      mode: 'Recreate',
      strategy: 'p95',
      target: { app: resources(300, 300), sidecar: resources(20, 40) },
      lowerBound: { app: resources(200, 200), sidecar: resources(10, 30) },
      upperBound: { app: resources(900, 900), sidecar: resources(50, 80) },
    },
    hpa: {
      name: 'web-hpa',
      currentReplicas: 10,
      desiredReplicas: 12,
      minReplicas: 2,
      maxReplicas: 40,
      metric: {
        type: 'Pods',
        name: 'cpu_utilization_of_original_request',
        targetType: 'AverageValue',
        target: 60,
        current: 64,
      },
    },
    nativeEquivalentReplicas: 15,
    nativeEquivalentReason: null,
    pods: 10,
    declared: { app: resources(500, 512), sidecar: resources(10, 32) },
    current: containers,
    usage: { app: resources(180, 200), sidecar: resources(4, 20) },
    ...overrides,
  };
}

const drift: FleetView = {
  namespace: undefined,
  sort: 'drift',
  descending: true,
  page: 1,
};

const event = (
  timeMs: number,
  overrides: Partial<ObservedEvent> = {},
): ObservedEvent => ({
  timeMs,
  type: 'Normal',
  reason: 'RecommendationChanged',
  message: 'app cpu 250m -> 300m',
  component: 'tandem-recommender',
  count: 1,
  object: { kind: 'VerticalPodAutoscaler', name: 'web-vpa' },
  ...overrides,
});

/** A day of samples every 15 s, recorded as the sampler records them. */
function dayOfHistory(workload: WorkloadSummary): HistoryPoint[] {
  const history = new WorkloadHistory();
  const start = Date.UTC(2026, 10, 26, 6, 0);
  for (let t = 0; t <= 24 * 3600_000; t += 15_000) {
    const wave = Math.sin(t / 3600_000);
    const usage = Object.fromEntries(
      Object.entries(workload.usage).map(([name, used]) => [
        name,
        {
          cpuMillicores: (used.cpuMillicores ?? 0) * (1 + wave / 2),
          memoryBytes: (used.memoryBytes ?? 0) * (1 + wave / 10),
        },
      ]),
    );
    history.record(
      start + t,
      historyValues({
        ...workload,
        hpa:
          workload.hpa === null
            ? null
            : { ...workload.hpa, currentReplicas: 10 + Math.round(5 * wave) },
        nativeEquivalentReplicas: 15 + Math.round(8 * wave),
        usage,
      }),
    );
  }
  return history.since(0);
}

describe('workloadPath', () => {
  it('is /workloads/<namespace>/<kind>/<name>, each part URL-encoded', () => {
    expect(workloadPath(summary())).toBe('/workloads/shop/Deployment/web');
    expect(workloadPath({ namespace: 'a b', kind: 'K/x', name: '<n>?#' })).toBe(
      '/workloads/a%20b/K%2Fx/%3Cn%3E%3F%23',
    );
  });
});

describe('fleetPage', () => {
  const fleet = [
    summary(),
    summary({ namespace: 'blog', name: 'api', nativeEquivalentReplicas: 10 }),
    summary({ namespace: 'ops', name: 'db', kind: 'StatefulSet', hpa: null }),
  ];

  it('is a whole page with only its own stylesheet and script', () => {
    const page = fleetPage(fleet, drift).text;
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(OWN_SCRIPT);
    expect(page).toContain(
      '<link rel="stylesheet" href="/assets/dashboard.css" />',
    );
    expect(foreignMarkup(page)).toEqual([]);
    expect(page).not.toMatch(/<style|style="|\son\w+=/i);
  });

  it('has one row per workload, marked data-workload="<namespace>/<name>"', () => {
    const page = fleetPage(fleet, drift).text;
    expect(page.match(/<tr data-workload="[^"]*"/g)).toEqual([
      '<tr data-workload="shop/web"',
      '<tr data-workload="blog/api"',
      '<tr data-workload="ops/db"',
    ]);
    expect(page).toContain('3 workloads.');
  });

  it("shows each workload's figures and links its page", () => {
    const page = squeeze(fleetPage([summary()], drift).text);
    expect(page).toContain(
      squeeze(`<tr data-workload="shop/web">
        <td>shop</td>
        <th scope="row">
          <a href="/workloads/shop/Deployment/web">web</a>
          <span class="kind">Deployment</span>
        </th>
        <td>Recreate</td>
        <td class="number">10 → 12</td>
        <td class="number">15</td>
        <td class="number">5</td>
        <td>app: 500m / 512Mi; sidecar: 10m / 32Mi</td>
        <td>app: 250m / 256Mi; sidecar: 10m / 32Mi</td>
        <td>app: 300m / 300Mi; sidecar: 20m / 40Mi</td>
      </tr>`),
    );
  });

  it('shows dashes for a workload without a VPA, an HPA or a native figure', () => {
    const page = squeeze(
      fleetPage(
        [
          summary({
            vpa: null,
            hpa: null,
            nativeEquivalentReplicas: null,
            nativeEquivalentReason: 'no HPA scales this workload',
            declared: {},
          }),
        ],
        drift,
      ).text,
    );
    expect(page).toContain(
      squeeze(`<td>—</td>
        <td class="number">—</td>
        <td class="number">—</td>
        <td class="number">—</td>
        <td>—</td>`),
    );
  });

  it('orders its rows by the view: drift, biggest first, by default', () => {
    const rows = (view: FleetView) =>
      fleetPage(fleet, view).text.match(/data-workload="([^"]*)"/g);
    expect(rows(drift)).toEqual([
      'data-workload="shop/web"',
      'data-workload="blog/api"',
      'data-workload="ops/db"',
    ]);
    expect(rows({ ...drift, sort: 'namespace', descending: false })).toEqual([
      'data-workload="blog/api"',
      'data-workload="ops/db"',
      'data-workload="shop/web"',
    ]);
  });

  it('marks the sorted column with aria-sort and links each header to its sort', () => {
    const headers = (view: FleetView) =>
      Object.fromEntries(
        [
          ...squeeze(fleetPage(fleet, view).text).matchAll(
            /<thscope="col"aria-sort="(\w+)"><ahref="([^"]*)">([^<]*)<\/a>/g,
          ),
        ].map(([, sort, href, label]) => [label, { sort, href }]),
      );
    expect(headers(drift)).toEqual({
      Namespace: { sort: 'none', href: '/?sort=namespace&amp;order=asc' },
      Workload: { sort: 'none', href: '/?sort=name&amp;order=asc' },
      HPAreplicas: { sort: 'none', href: '/?sort=replicas&amp;order=asc' },
      NativeHPAwouldrun: { sort: 'none', href: '/?sort=native&amp;order=asc' },
      // The sorted column's link turns the order round.
      Replicassaved: { sort: 'descending', href: '/?sort=drift&amp;order=asc' },
    });
    const byName = headers({
      namespace: 'shop',
      sort: 'name',
      descending: false,
      page: 1,
    });
    expect(byName['Workload']).toEqual({
      sort: 'ascending',
      href: '/?sort=name&amp;order=desc&amp;namespace=shop',
    });
    // Another column starts ascending, except drift, which starts biggest first.
    expect(byName['Namespace']).toEqual({
      sort: 'none',
      href: '/?sort=namespace&amp;order=asc&amp;namespace=shop',
    });
    expect(byName['Replicassaved']).toEqual({
      sort: 'none',
      href: '/?sort=drift&amp;order=desc&amp;namespace=shop',
    });
    expect(squeeze(fleetPage(fleet, drift).text)).toContain(
      'Workloads,sortedbyReplicassaved</caption>',
    );
  });

  it('filters by namespace, offering each namespace once, sorted, the chosen one selected', () => {
    const page = squeeze(
      fleetPage([...fleet, summary({ name: 'cart' })], {
        namespace: 'shop',
        sort: 'name',
        descending: false,
        page: 1,
      }).text,
    );
    expect(
      page.match(/<optionvalue="[^"]*"(selected)?>[^<]*<\/option>/g),
    ).toEqual([
      '<optionvalue="">allnamespaces</option>',
      '<optionvalue="blog">blog</option>',
      '<optionvalue="ops">ops</option>',
      '<optionvalue="shop"selected>shop</option>',
    ]);
    expect(page.match(/data-workload="([^"]*)"/g)).toEqual([
      'data-workload="shop/cart"',
      'data-workload="shop/web"',
    ]);
    expect(page).toContain('2workloads.');
    // The filter form keeps the sort and the order.
    expect(page).toContain('<inputtype="hidden"name="sort"value="name"/>');
    expect(page).toContain('<inputtype="hidden"name="order"value="asc"/>');
  });

  it('shows no rows for a namespace with no workloads', () => {
    const page = fleetPage(fleet, { ...drift, namespace: 'nowhere' }).text;
    expect(page).not.toContain('data-workload=');
    expect(page).toContain('0 workloads.');
  });

  it('writes every string from the cluster as text', () => {
    const evil = summary({
      namespace: SCRIPT,
      name: IMG,
      kind: SCRIPT,
      vpa: {
        name: IMG,
        mode: SCRIPT,
        strategy: IMG,
        target: { [SCRIPT]: resources(1, 1) },
        lowerBound: {},
        upperBound: {},
      },
      declared: { [IMG]: resources(1, 1) },
      current: { [SCRIPT]: resources(1, 1) },
    });
    for (const view of [
      drift,
      { namespace: SCRIPT, sort: 'name' as const, descending: false, page: 1 },
    ]) {
      const page = fleetPage([evil, summary()], view).text;
      expect(foreignMarkup(page)).toEqual([]);
      expect(page).toContain(escapeHtml(SCRIPT));
      expect(page).toContain(escapeHtml(IMG));
      expect(page).toContain(
        `data-workload="${escapeHtml(`${SCRIPT}/${IMG}`)}"`,
      );
    }
  });

  it('reports the size of a 2,000-workload page', () => {
    const namespaces = Array.from({ length: 40 }, (_, i) => `team-${i}`);
    const fleet2000 = Array.from({ length: 2000 }, (_, i) =>
      summary({
        namespace: namespaces[i % namespaces.length] ?? 'team',
        name: `service-${i}`,
        nativeEquivalentReplicas: 10 + (i % 7),
      }),
    );
    const bytes = Buffer.byteLength(fleetPage(fleet2000, drift).text);
    console.info(
      `fleet page of 2,000 workloads: ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB)`,
    );
    // A page of rows at a time, the way to the others linked.
    expect(
      fleetPage(fleet2000, drift).text.match(/data-workload=/g),
    ).toHaveLength(FLEET_PAGE_ROWS);
    expect(fleetPage(fleet2000, drift).text).toContain('Page 1 of 20');
    expect(
      fleetPage(fleet2000, { ...drift, page: 20 }).text.match(
        /data-workload=/g,
      ),
    ).toHaveLength(FLEET_PAGE_ROWS);
    expect(bytes).toBeLessThan(200 * 1024);
  });
});

describe('workloadPage', () => {
  const events = [
    event(Date.UTC(2026, 10, 27, 6, 10)),
    event(Date.UTC(2026, 10, 27, 6, 30), {
      type: 'Warning',
      reason: 'EvictionBlocked',
      message: 'PDB web allows no disruption',
      component: 'tandem-updater',
      count: 3,
      object: { kind: 'Pod', name: 'web-0' },
    }),
    event(Date.UTC(2026, 10, 27, 6, 20), {
      reason: 'SuccessfulRescale',
      message: 'New size: 12',
      component: 'horizontal-pod-autoscaler',
      object: { kind: 'HorizontalPodAutoscaler', name: 'web-hpa' },
    }),
  ];
  const points: HistoryPoint[] = [
    { timeMs: Date.UTC(2026, 10, 27, 6, 0), values: historyValues(summary()) },
    { timeMs: Date.UTC(2026, 10, 27, 6, 1), values: historyValues(summary()) },
  ];

  const shown = (
    drawn: readonly HistoryPoint[],
    missing?: string,
  ): PageHistory => ({
    points: drawn,
    view: historyView('6h', DAY_MS, false),
    missing,
  });

  it('offers the ranges its history covers, the one shown marked, and says what is missing', () => {
    const page = squeeze(
      workloadPage(
        summary(),
        shown(points, 'Prometheus at http://p:9090 did not answer'),
        events,
      ).text,
    );
    expect(page).toContain(
      squeeze(`<nav class="ranges" aria-label="History range"><ul>
        <li><a href="?range=1h" aria-current="false">1h</a></li>
        <li><a href="?range=6h" aria-current="page">6h</a></li>
        <li><a href="?range=24h" aria-current="false">24h</a></li>
      </ul></nav>`),
    );
    expect(page).toContain(
      squeeze(
        '<p class="notice" role="status">Older history is missing: Prometheus at http://p:9090 did not answer</p>',
      ),
    );
  });

  it("shows the workload's figures", () => {
    const page = squeeze(workloadPage(summary(), shown(points), events).text);
    expect(page).toContain('<title>shop/web·Tandem</title>');
    expect(page).toContain('<h1>Deploymentshop/web</h1>');
    expect(page).toContain(
      squeeze('<dt>VPA</dt><dd>web-vpa, mode Recreate, strategy p95</dd>'),
    );
    expect(page).toContain(
      squeeze('<dt>HPA</dt><dd>web-hpa: 10 running, 12 desired (2–40)</dd>'),
    );
    expect(page).toContain(
      squeeze('<dt>A native HPA would run</dt><dd>15</dd>'),
    );
    expect(page).toContain(
      squeeze(
        '<dt>Usage (mean a pod)</dt><dd>app: 180m / 200Mi; sidecar: 4m / 20Mi</dd>',
      ),
    );
  });

  it('says why there is no native figure, and that there is no VPA or HPA', () => {
    const page = squeeze(
      workloadPage(
        summary({
          vpa: null,
          hpa: null,
          nativeEquivalentReplicas: null,
          nativeEquivalentReason: 'no HPA scales this workload',
        }),
        shown([]),
        [],
      ).text,
    );
    expect(page).toContain('<dt>VPA</dt><dd>none</dd>');
    expect(page).toContain('<dt>HPA</dt><dd>none</dd>');
    expect(page).toContain(
      squeeze(
        '<dt>A native HPA would run</dt><dd>no HPA scales this workload</dd>',
      ),
    );
    expect(page).toContain('<p>Nosamplesyet.</p>');
    expect(page).toContain('<p>TheVPAhasnorecommendationyet.</p>');
    expect(page).toContain("<p>Noeventsaboutthisworkload'sobjectsyet.</p>");
  });

  it('holds the recommended YAML, escaped, in a block the copy button names', () => {
    const page = workloadPage(summary(), shown(points), events).text;
    const yaml = recommendedYaml(summary()) ?? '';
    expect(yaml).toContain('cpu: 300m');
    expect(page).toContain(
      `<pre id="recommended-yaml" tabindex="0">${escapeHtml(yaml)}</pre>`,
    );
    expect(page).toMatch(
      /<button[^>]*class="copy"[^>]*data-copy="recommended-yaml"/,
    );
  });

  it('lists the events newest first, warnings marked, repeats counted', () => {
    const page = workloadPage(summary(), shown(points), events).text;
    expect(
      [...page.matchAll(/<time datetime="([^"]*)"/g)].map(([, time]) => time),
    ).toEqual([
      '2026-11-27T06:30:00.000Z',
      '2026-11-27T06:20:00.000Z',
      '2026-11-27T06:10:00.000Z',
    ]);
    const rows = squeeze(page).match(/<trclass="[^"]*">.*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(3);
    expect(rows[0]).toBe(
      squeeze(`<tr class="warning">
        <td><time datetime="2026-11-27T06:30:00.000Z">2026-11-27 06:30:00</time></td>
        <td>tandem-updater</td>
        <td>Pod/web-0</td>
        <th scope="row">EvictionBlocked (×3)</th>
        <td>PDB web allows no disruption</td>
      </tr>`),
    );
    expect(rows[1]).toContain('<trclass="">');
    expect(rows[1]).toContain('SuccessfulRescale</th>');
  });

  it('draws the replicas plot when an HPA scales the workload, and CPU and memory per container', () => {
    const page = workloadPage(summary(), shown(points), events).text;
    const labels = [
      ...page.matchAll(/<figure class="plot"><svg [^>]*aria-label="([^"]*)"/g),
    ].map(([, label]) => label);
    expect(labels).toEqual([
      expect.stringMatching(/^Replicas: /),
      expect.stringMatching(/^app: CPU, 2 samples/),
      expect.stringMatching(/^app: memory, 2 samples/),
      expect.stringMatching(/^sidecar: CPU, 2 samples/),
      expect.stringMatching(/^sidecar: memory, 2 samples/),
    ]);
    const noHpa = workloadPage(summary({ hpa: null }), shown(points), []).text;
    expect(noHpa).not.toContain('aria-label="Replicas');
    expect(noHpa.match(/<figure class="plot">/g)).toHaveLength(4);
  });

  it('writes every string from the cluster as text', () => {
    const evil = summary({
      namespace: SCRIPT,
      name: IMG,
      kind: SCRIPT,
      vpa: {
        name: IMG,
        mode: SCRIPT,
        strategy: `${SCRIPT}${IMG}`,
        target: { [SCRIPT]: resources(100, 100), [IMG]: resources(1, 1) },
        lowerBound: { [SCRIPT]: resources(50, 50) },
        upperBound: { [SCRIPT]: resources(200, 200) },
      },
      hpa: {
        name: SCRIPT,
        currentReplicas: 2,
        desiredReplicas: 3,
        minReplicas: 1,
        maxReplicas: 5,
        metric: { type: IMG, name: SCRIPT, targetType: 'Value', target: 1 },
      },
      nativeEquivalentReplicas: null,
      nativeEquivalentReason: `a native HPA has no equivalent of ${IMG} metric ${SCRIPT}`,
      declared: { [IMG]: resources(1, 1) },
      current: { [SCRIPT]: resources(1, 1) },
      usage: { [IMG]: resources(1, 1) },
    });
    const evilEvents = [
      event(1_000, {
        type: SCRIPT,
        reason: SCRIPT,
        message: IMG,
        component: SCRIPT,
        count: 2,
        object: { kind: IMG, name: SCRIPT },
      }),
      event(2_000, { reason: IMG, message: SCRIPT, component: IMG }),
    ];
    const page = workloadPage(
      evil,
      shown([{ timeMs: 1_000, values: historyValues(evil) }]),
      evilEvents,
    ).text;
    expect(foreignMarkup(page)).toEqual([]);
    expect(page).toContain(escapeHtml(SCRIPT));
    expect(page).toContain(escapeHtml(IMG));
    // The replicas plot, and CPU and memory of both containers, their names escaped.
    expect(page.match(/<figure class="plot">/g)).toHaveLength(1 + 2 * 2);
  });

  it('stays under 200 KB with a day of history', () => {
    const workload = summary();
    const history = dayOfHistory(workload);
    // 288 five-minute means less the recent hour, and the hour's 241 samples.
    expect(history.length).toBeGreaterThan(500);
    const bytes = Buffer.byteLength(
      workloadPage(workload, shown(history), events).text,
    );
    console.info(
      `workload page with 24 h of history (2 containers, ${history.length} points): ${bytes} bytes`,
    );
    expect(bytes).toBeLessThan(200_000);
  });
});
