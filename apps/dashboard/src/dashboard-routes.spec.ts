import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  WorkloadHistory,
  type FleetSampler,
  type ObservedEvent,
  type WorkloadSummary,
} from '@tandem/dashboard-core';
import { DASHBOARD_CSS, DASHBOARD_JS } from './assets.js';
import {
  CONTENT_SECURITY_POLICY,
  dashboardRoutes,
  type OlderHistory,
} from './dashboard-routes.js';

const summary = (
  namespace: string,
  name: string,
  current: number,
  native: number,
): WorkloadSummary => ({
  namespace,
  kind: 'Deployment',
  name,
  vpa: {
    name: `${name}-vpa`,
    mode: 'Recreate',
    strategy: null,
    target: { app: { cpuMillicores: 300, memoryBytes: 268_435_456 } },
    lowerBound: {},
    upperBound: {},
  },
  hpa: {
    name: `${name}-hpa`,
    currentReplicas: current,
    desiredReplicas: current,
    minReplicas: 1,
    maxReplicas: 50,
    metric: {
      type: 'Resource',
      name: 'cpu',
      targetType: 'Utilization',
      target: 60,
    },
  },
  nativeEquivalentReplicas: native,
  nativeEquivalentReason: null,
  pods: current,
  declared: { app: { cpuMillicores: 500, memoryBytes: 268_435_456 } },
  current: { app: { cpuMillicores: 250, memoryBytes: 268_435_456 } },
  usage: { app: { cpuMillicores: 200, memoryBytes: 100_000_000 } },
});

// Inside a 5-minute step with the sample before it: the history holds just the two samples.
const SAMPLED_AT = Date.UTC(2026, 10, 27, 6, 1);

const workloads = [
  summary('shop', 'web', 10, 15),
  summary('shop', 'api', 4, 12),
  summary('blog', 'www', 3, 3),
];

const history = new WorkloadHistory();
history.record(SAMPLED_AT - 15_000, { replicas: 10, native: 14 });
history.record(SAMPLED_AT, { replicas: 10, native: 15, 'app|cpu|usage': 200 });

const events: ObservedEvent[] = [
  {
    timeMs: SAMPLED_AT - 60_000,
    type: 'Normal',
    reason: 'EvictedByVPA',
    message: 'Pod was evicted by VPA Updater to apply resource recommendation.',
    component: 'tandem-updater',
    count: 1,
    object: { kind: 'Pod', name: 'web-0' },
  },
];

let lastSampleMs: number | undefined = SAMPLED_AT;

const sampler: FleetSampler = {
  sample: async () => undefined,
  summaries: () => workloads,
  history: (key) => (key === 'shop/Deployment/web' ? history : undefined),
  podNames: (key) => (key === 'shop/Deployment/web' ? ['web-0', 'web-1'] : []),
  lastSampleMs: () => lastSampleMs,
};

const eventQueries: { namespace: string; names: string[] }[] = [];

const DAY_MS = 24 * 60 * 60_000;

/** The routes on a real HTTP server on a free port; its base URL, and how to stop it. */
async function serve(
  olderHistory?: OlderHistory,
): Promise<{ base: string; server: Server }> {
  const app = express();
  app.use(
    dashboardRoutes({
      sampler,
      podNamesOf: (key) => sampler.podNames(key),
      eventsAbout: (namespace, names) => {
        eventQueries.push({ namespace, names: [...names].sort() });
        return events.filter((event) => names.has(event.object.name));
      },
      memoryMs: DAY_MS,
      olderHistory,
      now: () => SAMPLED_AT,
    }),
  );
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
  };
}

const close = (server: Server) =>
  new Promise<void>((resolve, reject) =>
    server.close((error) => (error === undefined ? resolve() : reject(error))),
  );

let server: Server;
let base: string;

beforeAll(async () => {
  ({ base, server } = await serve());
});

afterAll(() => close(server));

beforeEach(() => {
  lastSampleMs = SAMPLED_AT;
  eventQueries.length = 0;
});

const get = (path: string, init?: RequestInit) => fetch(`${base}${path}`, init);

/** The rows of a fleet page, in order. */
const rows = (page: string) =>
  [...page.matchAll(/data-workload="([^"]*)"/g)].map(
    ([, workload]) => workload,
  );

const sortOf = (page: string) =>
  /<th\s+scope="col"\s+aria-sort="(ascending|descending)"\s*>\s*<a[^>]*>([^<]*)</
    .exec(page)
    ?.slice(1);

describe('dashboardRoutes', () => {
  it.each([
    '/',
    '/?sort=name&order=desc',
    '/api/workloads',
    '/workloads/shop/Deployment/web',
    '/workloads/shop/Deployment/nowhere',
    '/api/workloads/shop/Deployment/web',
    '/assets/dashboard.css',
    '/assets/dashboard.js',
  ])('sends the security headers with %s', async (path) => {
    const response = await get(path);
    await response.arrayBuffer();
    expect(response.headers.get('content-security-policy')).toBe(
      CONTENT_SECURITY_POLICY,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it("leaves a path it does not serve to Express's 404, which sends its own stricter policy", async () => {
    const response = await get('/no/such/page');
    await response.arrayBuffer();
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'",
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('allows no inline script or style and nothing from elsewhere', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });

  it('serves the fleet page, biggest drift first by default', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'text/html; charset=utf-8',
    );
    const page = await response.text();
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(rows(page)).toEqual(['shop/api', 'shop/web', 'blog/www']);
    expect(sortOf(page)).toEqual(['descending', 'Replicas saved']);
  });

  it('falls back to the drift order for an unknown sort', async () => {
    const page = await (await get('/?sort=bogus')).text();
    expect(rows(page)).toEqual(['shop/api', 'shop/web', 'blog/www']);
    expect(sortOf(page)).toEqual(['descending', 'Replicas saved']);
    const repeated = await (await get('/?sort=name&sort=namespace')).text();
    expect(sortOf(repeated)).toEqual(['descending', 'Replicas saved']);
  });

  it('sorts by the query, ascending unless told otherwise, and filters by namespace', async () => {
    const byName = await (await get('/?sort=name')).text();
    expect(rows(byName)).toEqual(['shop/api', 'shop/web', 'blog/www']);
    expect(sortOf(byName)).toEqual(['ascending', 'Workload']);
    const byNameDown = await (await get('/?sort=name&order=desc')).text();
    expect(rows(byNameDown)).toEqual(['blog/www', 'shop/web', 'shop/api']);
    expect(sortOf(byNameDown)).toEqual(['descending', 'Workload']);
    const driftUp = await (await get('/?order=asc')).text();
    expect(rows(driftUp)).toEqual(['blog/www', 'shop/web', 'shop/api']);
    const blog = await (await get('/?namespace=blog')).text();
    expect(rows(blog)).toEqual(['blog/www']);
    const all = await (await get('/?namespace=')).text();
    expect(rows(all)).toHaveLength(3);
  });

  it('answers HEAD without a body, and no other method', async () => {
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get('/', { method: 'POST' });
    await post.arrayBuffer();
    expect(post.status).toBe(404);
  });

  it('serves /api/workloads as {sampledAt, workloads}', async () => {
    const response = await get('/api/workloads');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      sampledAt: '2026-11-27T06:01:00.000Z',
      workloads: JSON.parse(JSON.stringify(workloads)),
    });
  });

  it.each([
    ['gzip, deflate', 'gzip'],
    ['identity', null],
  ])(
    'sends /api/workloads with Accept-Encoding %s encoded as %s, the same JSON',
    async (accepted, encoding) => {
      const response = await get('/api/workloads', {
        headers: { 'accept-encoding': accepted },
      });
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(
        ((await response.json()) as { workloads: unknown[] }).workloads,
      ).toHaveLength(workloads.length);
    },
  );

  it('gives a null sampledAt before the first sample', async () => {
    lastSampleMs = undefined;
    const body = (await (await get('/api/workloads')).json()) as {
      sampledAt: unknown;
    };
    expect(body.sampledAt).toBeNull();
  });

  it("serves a workload's page, with its plots, YAML and the events of its objects", async () => {
    const response = await get('/workloads/shop/Deployment/web');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'text/html; charset=utf-8',
    );
    const page = await response.text();
    expect(page).toContain('<title>shop/web · Tandem</title>');
    expect(page).toContain('<pre id="recommended-yaml"');
    expect(page).toContain('EvictedByVPA');
    expect(page.match(/<figure class="plot">/g)).toHaveLength(3);
    expect(eventQueries).toEqual([
      {
        namespace: 'shop',
        names: ['web', 'web-0', 'web-1', 'web-hpa', 'web-vpa'],
      },
    ]);
  });

  it.each([
    ['/workloads/shop/Deployment/nowhere', 'Deployment shop/nowhere'],
    ['/workloads/elsewhere/Deployment/web', 'Deployment elsewhere/web'],
    ['/workloads/shop/StatefulSet/web', 'StatefulSet shop/web'],
    ['/api/workloads/shop/Deployment/nowhere', 'Deployment shop/nowhere'],
  ])(
    'answers 404 with a text message for %s, which no VPA or HPA targets',
    async (path, what) => {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe(
        'text/plain; charset=utf-8',
      );
      expect(await response.text()).toBe(`no VPA or HPA targets ${what}\n`);
    },
  );

  it('serves a workload as JSON: the workload, its history and its events', async () => {
    const response = await get('/api/workloads/shop/Deployment/web');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      workload: JSON.parse(JSON.stringify(workloads[0])),
      range: '24h',
      historyMissing: null,
      history: [
        { timeMs: SAMPLED_AT - 15_000, values: { replicas: 10, native: 14 } },
        {
          timeMs: SAMPLED_AT,
          values: { replicas: 10, native: 15, 'app|cpu|usage': 200 },
        },
      ],
      events: JSON.parse(JSON.stringify(events)),
    });
  });

  it('serves an empty history for a workload not sampled yet', async () => {
    const body = (await (
      await get('/api/workloads/blog/Deployment/www')
    ).json()) as {
      history: unknown;
      events: unknown;
    };
    expect(body.history).toEqual([]);
    expect(body.events).toEqual([]);
  });

  it('decodes the path parts of a workload link', async () => {
    const response = await get('/workloads/%73hop/Deployment/w%65b');
    await response.arrayBuffer();
    expect(response.status).toBe(200);
  });

  it('serves its stylesheet and script with their content types', async () => {
    const css = await get('/assets/dashboard.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe(DASHBOARD_CSS);
    const js = await get('/assets/dashboard.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(
      /^(text|application)\/javascript; charset=utf-8$/,
    );
    expect(await js.text()).toBe(DASHBOARD_JS);
  });

  it('draws the range asked for from memory, and offers no range past it without Prometheus', async () => {
    const body = (await (
      await get('/api/workloads/shop/Deployment/web?range=7d')
    ).json()) as { range: string; history: unknown[] };
    expect(body.range).toBe('24h');
    expect(body.history).toHaveLength(2);
    const page = await (
      await get('/workloads/shop/Deployment/web?range=1h')
    ).text();
    expect(
      [
        ...page.matchAll(/href="\?range=([^"]+)"\s+aria-current="([^"]+)"/g),
      ].map(([, name, current]) => `${name}:${current}`),
    ).toEqual(['1h:page', '6h:false', '24h:false']);
  });
});

describe('dashboardRoutes with older history', () => {
  const asked: { workload: unknown; range: unknown }[] = [];
  let answer: () => Promise<
    Awaited<ReturnType<OlderHistory['read']>>
  > = async () => [];
  let older: { base: string; server: Server };

  beforeAll(async () => {
    older = await serve({
      minStepMs: 15_000,
      read: (workload, range) => {
        asked.push({ workload, range });
        return answer();
      },
    });
  });
  afterAll(() => close(older.server));
  beforeEach(() => {
    asked.length = 0;
  });

  const workloadJson = async (range: string) =>
    (await (
      await fetch(
        `${older.base}/api/workloads/shop/Deployment/web?range=${range}`,
      )
    ).json()) as {
      range: string;
      history: { timeMs: number; values: Record<string, number> }[];
      historyMissing: string | null;
    };

  it('reads a range past memory from it, at a step that keeps about 600 points, then the samples it has not scraped', async () => {
    answer = async () => [
      { timeMs: SAMPLED_AT - 3 * DAY_MS, values: { replicas: 3 } },
      { timeMs: SAMPLED_AT - 15_000, values: { replicas: 10 } },
    ];
    const body = await workloadJson('7d');
    expect(asked).toEqual([
      {
        workload: { namespace: 'shop', kind: 'Deployment', workload: 'web' },
        range: {
          startMs: SAMPLED_AT - 7 * DAY_MS,
          endMs: SAMPLED_AT,
          stepMs: 1_008_000,
        },
      },
    ]);
    expect(body.range).toBe('7d');
    expect(body.historyMissing).toBeNull();
    expect(body.history).toEqual([
      { timeMs: SAMPLED_AT - 3 * DAY_MS, values: { replicas: 3 } },
      { timeMs: SAMPLED_AT - 15_000, values: { replicas: 10 } },
      {
        timeMs: SAMPLED_AT,
        values: { replicas: 10, native: 15, 'app|cpu|usage': 200 },
      },
    ]);
  });

  it('does not ask it for a range memory holds', async () => {
    expect((await workloadJson('6h')).history).toHaveLength(2);
    expect(asked).toEqual([]);
  });

  it("draws memory's history and says why the rest is missing when it fails", async () => {
    answer = async () => {
      throw new Error('http://prometheus:9090/api/v1/query_range: HTTP 503');
    };
    const body = await workloadJson('30d');
    expect(body.historyMissing).toBe(
      'http://prometheus:9090/api/v1/query_range: HTTP 503',
    );
    expect(body.history).toHaveLength(2);
    const page = await (
      await fetch(`${older.base}/workloads/shop/Deployment/web?range=30d`)
    ).text();
    expect(page).toContain('Older history is missing:');
    expect(page).toContain('HTTP 503');
    expect(page.match(/<figure class="plot">/g)).toHaveLength(3);
  });
});
