import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import type { AdmissionContext } from '@tandem/admission';
import { createRegistry, healthy } from '@tandem/telemetry';
import { MAX_REVIEW_BYTES, reviewApp } from './review-app.js';
import { podReview, postReview, vpa } from './review.fixtures.js';
import { webhookMetrics } from './webhook-metrics.js';

let server: Server;
let url: string;
const registry = createRegistry();
let failLookups = false;
let updateMode = 'Initial';
const recorded: unknown[][] = [];

const context: AdmissionContext = {
  vpasInNamespace: async () => {
    if (failLookups) throw new Error('the VPA cache is gone');
    const reviewed = {
      ...vpa,
      spec: { ...vpa.spec, updatePolicy: { updateMode } },
    };
    return [
      { vpa: reviewed as never, selector: { matchLabels: { app: 'web' } } },
    ];
  },
  // The ReplicaSet belongs to the Deployment the VPA targets.
  topMostController: async () => ({ kind: 'Deployment', name: 'web' }),
  limitRanges: async () => [],
  featureGates: {},
};

beforeAll(async () => {
  const app = reviewApp({
    context,
    metrics: webhookMetrics(registry),
    recordEvent: (...event) => {
      recorded.push(event);
    },
    registry,
    tracer: trace.getTracer('test'),
    logger: pino({ level: 'silent' }),
    health: () => healthy,
    readiness: () => healthy,
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
  return postReview(url, body, contentType);
}

async function metric(name: string): Promise<string> {
  const text = await registry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');
}

describe('reviewApp', () => {
  it('applies the recommendation to a pod and answers with an AdmissionReview', async () => {
    const { status, json } = await post(JSON.stringify(podReview));
    expect(status).toBe(200);
    const response = json['response'] as Record<string, unknown>;
    expect(response).toMatchObject({
      uid: 'uid-1',
      allowed: true,
      patchType: 'JSONPatch',
    });
    const patch = JSON.parse(
      Buffer.from(String(response['patch']), 'base64').toString(),
    );
    expect(patch).toContainEqual({
      op: 'add',
      path: '/spec/containers/0/resources/requests/cpu',
      value: '250m',
    });
    expect(
      await metric('vpa_admission_controller_admission_pods_total'),
    ).toContain(
      'vpa_admission_controller_admission_pods_total{applied="true"} 1',
    );
  });

  it('counts and warns of resources left as declared because the pod sets them at pod level', async () => {
    const withPodLevelCpu = structuredClone(podReview);
    Object.assign(withPodLevelCpu.request.object.spec, {
      resources: { requests: { cpu: '1' } },
    });
    const { json } = await post(JSON.stringify(withPodLevelCpu));
    const response = json['response'] as { warnings?: string[] };
    expect(response.warnings?.join(' ')).toMatch(
      /pod-level resources set for cpu/,
    );
    expect(
      await metric('tandem_admission_pod_level_resources_total'),
    ).toContain('tandem_admission_pod_level_resources_total{resource="cpu"} 1');
  });

  it('allows the pod with a warning when a lookup fails', async () => {
    failLookups = true;
    try {
      const { status, json } = await post(JSON.stringify(podReview));
      expect(status).toBe(200);
      expect(json['response']).toMatchObject({ allowed: true });
      expect(
        (json['response'] as { warnings?: string[] }).warnings?.join(' '),
      ).toMatch(/the VPA cache is gone/);
    } finally {
      failLookups = false;
    }
  });

  it.each([
    ['{"not json', 'application/json', 400, 'malformed'],
    ['{"apiVersion":"v1"}', 'application/json', 400, 'malformed'],
    ['hello', 'text/plain', 415, 'unsupported-media-type'],
    [
      JSON.stringify({ pad: 'x'.repeat(MAX_REVIEW_BYTES) }),
      'application/json',
      413,
      'oversized',
    ],
  ])(
    'answers %# with %s → a %i Status and counts it',
    async (body, type, code, kind) => {
      const before = await metric(
        `tandem_admission_rejected_input_total{kind="${kind}"}`,
      );
      const { status, json } = await post(body, type);
      expect(status).toBe(code);
      expect(json).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code,
        reason: kind,
      });
      expect(String(json['message'])).not.toBe('');
      const count = (text: string) => Number(text.split(' ').pop() || 0);
      expect(
        count(
          await metric(`tandem_admission_rejected_input_total{kind="${kind}"}`),
        ),
      ).toBe(count(before) + 1);
    },
  );

  it('writes PodLeftUnchanged on the VPA of a pod it leaves as declared, and nothing else', async () => {
    recorded.length = 0;
    await post(JSON.stringify(podReview));
    expect(recorded).toEqual([]);
    updateMode = 'Off';
    try {
      await post(JSON.stringify(podReview));
    } finally {
      updateMode = 'Initial';
    }
    expect(recorded).toEqual([
      [
        expect.objectContaining({ kind: 'VerticalPodAutoscaler', name: 'web' }),
        'Normal',
        'PodLeftUnchanged',
        'Pod web-1 of ReplicaSet web-6d4f admitted with its resources as declared: update mode Off',
      ],
    ]);
  });

  it('serves the health endpoints beside the reviews', async () => {
    const status = await new Promise<number>((resolve, reject) =>
      request(`${url}readyz`, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
    expect(status).toBe(200);
  });
});
