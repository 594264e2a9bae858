import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '@tandem/serving';
import express from 'express';
import { pino } from 'pino';
import {
  delegatedAuth,
  subjectAccessReviewer,
  tokenReviewer,
  type RequestHeaderConfig,
} from '../auth/index.js';
import {
  sendJson,
  startFakeApiServer,
  type FakeApiServer,
} from '../auth/fake-api-server.fixtures.js';
import { requestAttributes } from '../metric-routes.js';
import { passThroughRoutes } from './pass-through-routes.js';
import { connectionCredentials, upstreamGet } from './upstream-client.js';
import { upstreamDiscovery } from './upstream-discovery.js';

const V2 = '/apis/custom.metrics.k8s.io/v1beta2';
const logger = pino({ level: 'silent' });
const frontProxy: RequestHeaderConfig = {
  clientCaPem: undefined,
  requestheaderCaPem: undefined,
  allowedNames: [],
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

interface Seen {
  url: string;
  authorization: string | undefined;
  accept: string | undefined;
}

/** An upstream provider on HTTPS with a CA of its own; `hang` keeps requests unanswered. */
async function startUpstream(
  ca = createCertificateAuthority({ commonName: 'upstream-ca' }),
) {
  const serving = issueServingCertificate(ca, {
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  const seen: Seen[] = [];
  const state = { hang: false };
  const server: Server = createHttpsServer(
    { cert: serving.certPem, key: serving.keyPem },
    (request: IncomingMessage, response) => {
      seen.push({
        url: request.url ?? '',
        authorization: request.headers.authorization,
        accept: request.headers.accept,
      });
      if (state.hang) return;
      if (request.url === V2)
        return sendJson(response, 200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: 'custom.metrics.k8s.io/v1beta2',
          resources: [
            { name: 'services/http_requests', namespaced: true },
            { name: 'pods/cpu_usage', namespaced: true },
          ],
        });
      response.writeHead(418, { 'content-type': 'application/vnd.upstream' });
      response.end('from upstream');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: ca.certPem,
    seen,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Upstream = Awaited<ReturnType<typeof startUpstream>>;

/** Tandem's adapter as main.ts wires it, the reviews made by a fake API server. */
async function startAdapter(
  api: FakeApiServer,
  upstream: { url: string; caPem: string },
  forwardTimeoutMs?: number,
) {
  const get = upstreamGet({
    url: upstream.url,
    caPem: upstream.caPem,
    credentials: connectionCredentials(api.connection),
  });
  const app = express();
  app.use(
    delegatedAuth({
      config: () => frontProxy,
      reviewToken: tokenReviewer(api.connection),
      authorize: subjectAccessReviewer(api.connection),
      attributesOf: requestAttributes,
      logger,
    }),
  );
  app.use(
    passThroughRoutes({
      upstreamUrl: upstream.url,
      get,
      discovery: upstreamDiscovery({
        get,
        now: () => 0,
        onError: () => undefined,
      }),
      observe: () => undefined,
      logger,
      forwardTimeoutMs,
    }),
  );
  app.get(/.*/, (_request, response) => {
    response.status(200).send('from tandem');
  });
  const server: HttpServer = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(url: string, token: string) {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The fake API server: bob's token is valid but bob may read nothing; alice may read all. */
function startApi() {
  return startFakeApiServer((request, response) => {
    if (request.path.endsWith('/tokenreviews')) {
      const token = (request.body as { spec: { token: string } }).spec.token;
      const user = { 'alice-token': 'alice', 'bob-token': 'bob' }[token];
      return sendJson(response, 201, {
        ...(request.body as object),
        status:
          user === undefined
            ? { authenticated: false }
            : { authenticated: true, user: { username: user, groups: [] } },
      });
    }
    const spec = (request.body as { spec: { user: string } }).spec;
    sendJson(response, 201, {
      ...(request.body as object),
      status: { allowed: spec.user === 'alice' },
    });
  });
}

const reviewsOf = (api: FakeApiServer) =>
  api.requests
    .filter((request) => request.path.endsWith('/subjectaccessreviews'))
    .map((request) => (request.body as { spec: object }).spec);

describe('the pass-through behind delegated auth', () => {
  let api: FakeApiServer;
  let upstream: Upstream;
  let adapter: Awaited<ReturnType<typeof startAdapter>>;

  beforeEach(async () => {
    api = await startApi();
    upstream = await startUpstream();
    adapter = await startAdapter(api, upstream);
  });
  afterEach(async () => {
    await adapter.close();
    await upstream.close();
    await api.close();
  });

  it('forwards a read Tandem does not serve as the adapter, after the caller’s review of that exact resource', async () => {
    const path = `${V2}/namespaces/shop/services/web/http_requests?metricLabelSelector=a%3Db`;
    expect(await call(`${adapter.url}${path}`, 'alice-token')).toEqual({
      status: 418,
      type: 'application/vnd.upstream',
      text: 'from upstream',
    });
    expect(upstream.seen).toEqual([
      {
        url: path,
        authorization: 'Bearer adapter-token',
        accept: expect.any(String),
      },
    ]);
    expect(reviewsOf(api)).toEqual([
      expect.objectContaining({
        user: 'alice',
        resourceAttributes: {
          namespace: 'shop',
          verb: 'get',
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          resource: 'services',
          subresource: 'http_requests',
          name: 'web',
        },
      }),
    ]);
  });

  it('refuses a caller the review denies before anything reaches the upstream', async () => {
    const answer = await call(
      `${adapter.url}${V2}/namespaces/shop/pods/*/http_requests`,
      'bob-token',
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message: expect.stringContaining('pods/http_requests'),
    });
    expect(upstream.seen).toEqual([]);
    expect(await call(`${adapter.url}${V2}`, 'nobody')).toMatchObject({
      status: 401,
    });
    expect(upstream.seen).toEqual([]);
  });

  it('keeps Tandem’s own metrics, and merges discovery with Tandem’s names first', async () => {
    expect(
      await call(
        `${adapter.url}${V2}/namespaces/shop/pods/*/cpu_usage`,
        'alice-token',
      ),
    ).toMatchObject({ status: 200, text: 'from tandem' });
    const discovery = await call(`${adapter.url}${V2}`, 'alice-token');
    const names = (
      JSON.parse(discovery.text) as { resources: { name: string }[] }
    ).resources.map((resource) => resource.name);
    expect(names).toContain('pods/cpu_usage');
    expect(names.at(-1)).toBe('services/http_requests');
    expect(names.filter((name) => name === 'pods/cpu_usage')).toHaveLength(1);
    expect(upstream.seen.map((seen) => seen.url)).toEqual([V2]);
  });
});

describe('the pass-through when the upstream fails', () => {
  let api: FakeApiServer;
  beforeEach(async () => (api = await startApi()));
  afterEach(() => api.close());

  it('answers 503 naming the provider when it is down, and lists Tandem’s metrics alone', async () => {
    const upstream = await startUpstream();
    await upstream.close();
    const adapter = await startAdapter(api, upstream);
    try {
      const answer = await call(
        `${adapter.url}${V2}/namespaces/shop/services/web/http_requests`,
        'alice-token',
      );
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toMatchObject({
        kind: 'Status',
        code: 503,
        reason: 'ServiceUnavailable',
        message: expect.stringMatching(
          new RegExp(
            `^the upstream custom metrics provider ${upstream.url} \\(--upstream-provider\\) did not answer .*ECONNREFUSED`,
          ),
        ),
      });
      const discovery = await call(`${adapter.url}${V2}`, 'alice-token');
      expect(discovery.status).toBe(200);
      expect(discovery.text).not.toContain('services/http_requests');
    } finally {
      await adapter.close();
    }
  });

  it('answers 503 when the upstream does not answer within the limit', async () => {
    const upstream = await startUpstream();
    upstream.state.hang = true;
    const adapter = await startAdapter(api, upstream, 100);
    try {
      const answer = await call(
        `${adapter.url}${V2}/namespaces/shop/services/web/http_requests`,
        'alice-token',
      );
      expect(answer.status).toBe(503);
      expect(answer.text).toContain('no answer within 0.1s');
    } finally {
      await adapter.close();
      await upstream.close();
    }
  });

  it('refuses an upstream whose certificate another CA signed', async () => {
    const upstream = await startUpstream();
    const adapter = await startAdapter(api, {
      url: upstream.url,
      caPem: createCertificateAuthority({ commonName: 'not-upstream' }).certPem,
    });
    try {
      const answer = await call(
        `${adapter.url}${V2}/namespaces/shop/services/web/http_requests`,
        'alice-token',
      );
      expect(answer.status).toBe(503);
      expect(answer.text).toMatch(/certificate/);
      expect(upstream.seen).toEqual([]);
    } finally {
      await adapter.close();
      await upstream.close();
    }
  });
});
