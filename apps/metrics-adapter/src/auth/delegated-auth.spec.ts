import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  startHttpsServer,
  type CertificatePair,
  type HttpsServer,
} from '@tandem/serving';
import express, { type Request } from 'express';
import { pino } from 'pino';
import type { RequestHeaderConfig } from './authentication-config.js';
import type { Authentication, Caller } from './caller.js';
import {
  delegatedAuth,
  withAuthenticatedGroup,
  type AuthOutcome,
} from './delegated-auth.js';
import type { RequestAttributes } from './request-attributes.js';
import { TokenReviewsThrottled } from './token-review.js';

const config: RequestHeaderConfig = {
  clientCaPem: undefined,
  requestheaderCaPem: 'set by the test',
  allowedNames: ['front-proxy-client'],
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

const callerOf = (user: string): Caller => ({
  user,
  groups: ['system:authenticated'],
  extra: {},
  via: 'token',
});

/** The app under test, with stubs in place of TokenReview and SubjectAccessReview. */
function testApp() {
  const state = {
    config: config as RequestHeaderConfig | undefined,
    outcomes: [] as AuthOutcome[],
    tokenReviews: [] as string[],
    reviewsDown: false,
    reviewsThrottled: false,
    authorizeDown: false,
  };
  const app = express();
  app.use(
    delegatedAuth({
      config: () => state.config,
      reviewToken: async (token): Promise<Authentication> => {
        state.tokenReviews.push(token);
        if (state.reviewsDown)
          throw new Error('TokenReview failed: HTTP 503: etcd is down');
        if (state.reviewsThrottled) throw new TokenReviewsThrottled();
        return token === 'alice-token'
          ? { ok: true, caller: callerOf('alice') }
          : token === 'bob-token'
            ? { ok: true, caller: callerOf('bob') }
            : { ok: false, reason: 'TokenReview: invalid bearer token' };
      },
      authorize: async (caller) => {
        if (state.authorizeDown)
          throw new Error('SubjectAccessReview failed: connect ECONNREFUSED');
        return caller.user === 'bob'
          ? { allowed: false, reason: 'no RBAC policy matched' }
          : { allowed: true, reason: '' };
      },
      attributesOf: (req: Request): RequestAttributes => ({
        resource: {
          namespace: 'shop',
          verb: 'get',
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          resource: 'pods',
          subresource: req.path.split('/').at(-1) ?? '',
          name: '*',
        },
      }),
      count: (outcome) => state.outcomes.push(outcome),
      logger: pino({ level: 'silent' }),
    }),
  );
  app.get(['/healthz', '/readyz/ping'], (_req, res) => res.send('ok'));
  app.get('/metric/:name', (req, res) => {
    res.json({
      caller: res.locals.caller as Caller,
      // What a handler behind the middleware can still see.
      authorization: req.headers.authorization ?? null,
      remoteUser: req.headers['x-remote-user'] ?? null,
    });
  });
  return { app, state };
}

interface Answer {
  status: number;
  json: Record<string, unknown>;
  /** Only when the server sent one (toEqual ignores an undefined property). */
  retryAfter?: string;
}

function call(
  url: string,
  headers: Record<string, string | string[]> = {},
  tls: RequestOptions = {},
): Promise<Answer> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { headers, agent: false, ...tls },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            json: response.headers['content-type']?.includes('json')
              ? (JSON.parse(text) as Record<string, unknown>)
              : { text },
            retryAfter: response.headers['retry-after'],
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('delegatedAuth over HTTP', () => {
  const { app, state } = testApp();
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  beforeEach(() => {
    state.config = config;
    state.outcomes.length = 0;
    state.tokenReviews.length = 0;
    state.reviewsDown = false;
    state.reviewsThrottled = false;
    state.authorizeDown = false;
  });

  it('answers 401 with a Status when there are no credentials', async () => {
    expect(await call(`${url}/metric/cpu`)).toEqual({
      status: 401,
      json: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      },
    });
    expect(state.outcomes).toEqual(['unauthenticated']);
  });

  it('ignores X-Remote-* headers from a peer without a verified certificate', async () => {
    const answer = await call(`${url}/metric/cpu`, {
      'X-Remote-User': 'system:kube-aggregator',
      'X-Remote-Group': 'system:masters',
    });
    expect(answer.status).toBe(401);
  });

  it('lets a reviewed token through with res.locals.caller set and the credentials removed', async () => {
    const answer = await call(`${url}/metric/cpu`, {
      authorization: 'Bearer alice-token',
      'X-Remote-User': 'mallory',
    });
    expect(answer).toEqual({
      status: 200,
      json: {
        caller: callerOf('alice'),
        authorization: null,
        remoteUser: null,
      },
    });
    expect(state.outcomes).toEqual(['authenticated']);
  });

  it('answers 401 for a token the API server rejects', async () => {
    const answer = await call(`${url}/metric/cpu`, {
      authorization: 'Bearer stolen',
    });
    expect(answer.status).toBe(401);
    expect(answer.json.reason).toBe('Unauthorized');
  });

  it('answers 403 with the Go apiserver message when the review denies', async () => {
    const answer = await call(`${url}/metric/cpu_usage`, {
      authorization: 'Bearer bob-token',
    });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message:
        'pods.custom.metrics.k8s.io "*" is forbidden: User "bob" cannot get resource "pods/cpu_usage" in API group "custom.metrics.k8s.io" in the namespace "shop": no RBAC policy matched',
    });
    expect(state.outcomes).toEqual(['forbidden']);
  });

  it('answers 503 with the cause when a review cannot be made', async () => {
    state.reviewsDown = true;
    const authn = await call(`${url}/metric/cpu`, {
      authorization: 'Bearer alice-token',
    });
    expect(authn.status).toBe(503);
    expect(authn.json).toMatchObject({
      reason: 'ServiceUnavailable',
      code: 503,
      message:
        'cannot authenticate the request: TokenReview failed: HTTP 503: etcd is down',
    });
    state.reviewsDown = false;
    state.authorizeDown = true;
    const authz = await call(`${url}/metric/cpu`, {
      authorization: 'Bearer alice-token',
    });
    expect(authz.status).toBe(503);
    expect(authz.json.message).toBe(
      'cannot authorize the request: SubjectAccessReview failed: connect ECONNREFUSED',
    );
    expect(state.outcomes).toEqual(['error', 'error']);
  });

  it('answers 429 with Retry-After, not 401 or 503, while the TokenReview budget is spent', async () => {
    state.reviewsThrottled = true;
    expect(
      await call(`${url}/metric/cpu`, { authorization: 'Bearer random-1' }),
    ).toEqual({
      status: 429,
      retryAfter: '1',
      json: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'more than 10 new bearer tokens a second to review; retry later',
        reason: 'TooManyRequests',
        code: 429,
      },
    });
    expect(state.outcomes).toEqual(['throttled']);
  });

  it('answers 503 until the front-proxy configuration was read, unless a token is given', async () => {
    state.config = undefined;
    const answer = await call(`${url}/metric/cpu`);
    expect(answer.status).toBe(503);
    expect(answer.json.message).toContain(
      'kube-system/extension-apiserver-authentication has not been read',
    );
    const withToken = await call(`${url}/metric/cpu`, {
      authorization: 'Bearer alice-token',
    });
    expect(withToken.status).toBe(200);
  });

  it('lets probes through without credentials, reviews or counts', async () => {
    expect((await call(`${url}/healthz`)).status).toBe(200);
    expect((await call(`${url}/readyz/ping`)).status).toBe(200);
    expect(state.tokenReviews).toEqual([]);
    expect(state.outcomes).toEqual([]);
  });
});

describe('delegatedAuth behind the front proxy (TLS client certificates)', () => {
  const { app, state } = testApp();
  let dir: string;
  let server: HttpsServer;
  let serverCa: CertificatePair;
  let frontProxy: CertificatePair;
  let wrongName: CertificatePair;
  let otherCa: CertificatePair;

  beforeAll(async () => {
    // The front-proxy CA also signs the serving certificate: fewer RSA keys to generate.
    serverCa = createCertificateAuthority({ commonName: 'front-proxy-ca' });
    const client = (ca: CertificatePair, commonName: string) =>
      issueServingCertificate(ca, {
        dnsNames: [commonName],
        commonName,
        clientAuth: true,
      });
    frontProxy = client(serverCa, 'front-proxy-client');
    wrongName = client(serverCa, 'someone-else');
    otherCa = createCertificateAuthority({ commonName: 'other-ca' });
    const serving = issueServingCertificate(serverCa, {
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
    });
    dir = await mkdtemp(join(tmpdir(), 'delegated-auth-'));
    await writeFile(join(dir, 'tls.crt'), serving.certPem);
    await writeFile(join(dir, 'tls.key'), serving.keyPem);
    await writeFile(join(dir, 'requestheader-ca.crt'), serverCa.certPem);
    server = await startHttpsServer({
      port: 0,
      host: '127.0.0.1',
      certFile: join(dir, 'tls.crt'),
      keyFile: join(dir, 'tls.key'),
      clientCaFile: join(dir, 'requestheader-ca.crt'),
      app,
      logger: pino({ level: 'silent' }),
    });
  });

  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const headers = {
    'X-Remote-User':
      'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
    'X-Remote-Group': ['system:serviceaccounts', 'system:authenticated'],
    'X-Remote-Extra-Scopes': 'view',
  };
  const asClient = (pair: CertificatePair): RequestOptions => ({
    ca: serverCa.certPem,
    cert: pair.certPem,
    key: pair.keyPem,
  });

  it('believes the headers from the allowed front-proxy certificate', async () => {
    const answer = await call(
      `${server.url}/metric/cpu`,
      headers,
      asClient(frontProxy),
    );
    expect(answer).toEqual({
      status: 200,
      json: {
        caller: {
          user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
          groups: ['system:serviceaccounts', 'system:authenticated'],
          extra: { scopes: ['view'] },
          via: 'front-proxy',
        },
        authorization: null,
        remoteUser: null,
      },
    });
  });

  it('refuses the headers from a certificate with another CN or from another CA', async () => {
    for (const pair of [wrongName, client(otherCa)]) {
      const answer = await call(
        `${server.url}/metric/cpu`,
        headers,
        asClient(pair),
      );
      expect(answer.status).toBe(401);
    }
    expect(state.outcomes.slice(-2)).toEqual([
      'unauthenticated',
      'unauthenticated',
    ]);
  });

  it('falls through to the bearer token when the front proxy names no user', async () => {
    const answer = await call(
      `${server.url}/metric/cpu`,
      { authorization: 'Bearer alice-token' },
      asClient(frontProxy),
    );
    expect(answer.status).toBe(200);
    expect(answer.json.caller).toEqual(callerOf('alice'));
  });

  function client(ca: CertificatePair): CertificatePair {
    return issueServingCertificate(ca, {
      dnsNames: ['front-proxy-client'],
      commonName: 'front-proxy-client',
      clientAuth: true,
    });
  }
});

describe('withAuthenticatedGroup', () => {
  it('adds system:authenticated once, as Go’s authenticator does', () => {
    const caller = {
      user: 'system:aggregator',
      groups: [],
      extra: {},
      via: 'front-proxy' as const,
    };
    expect(withAuthenticatedGroup(caller).groups).toEqual([
      'system:authenticated',
    ]);
    expect(
      withAuthenticatedGroup(withAuthenticatedGroup(caller)).groups,
    ).toEqual(['system:authenticated']);
  });
});
