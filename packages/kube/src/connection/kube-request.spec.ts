import fc from 'fast-check';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, httpStatusOf } from '../api-errors.js';
import { plainConnection, type KubeConnection } from './kube-connection.js';
import {
  kubeGetJson,
  kubeRequest,
  kubeSendJson,
  openKubeRequest,
} from './kube-request.js';

/** One request as the server saw it. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Answer = (
  received: Received,
  response: ServerResponse<IncomingMessage>,
) => void;

/** A local API server stand-in: records each request, then lets `answer` reply. */
async function startServer(): Promise<{
  url: string;
  received: Received[];
  answerWith: (answer: Answer) => void;
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  let answer: Answer = (_, response) => response.end('{}');
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const one = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      };
      received.push(one);
      answer(one, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerWith: (next) => (answer = next),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const json =
  (status: number, body: unknown): Answer =>
  (_, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

const notFound = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'pods "web-0" not found',
  reason: 'NotFound',
  code: 404,
};

describe('kube requests', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let connection: KubeConnection;

  beforeEach(async () => {
    server = await startServer();
    connection = plainConnection(server.url);
  });
  afterEach(() => server.close());

  describe('kubeRequest', () => {
    it('answers the body of a 2xx response and asks for JSON', async () => {
      server.answerWith(json(201, '{"kind":"Pod"}'));
      await expect(
        kubeRequest(connection, {
          method: 'GET',
          path: '/api/v1/namespaces/ns/pods/web-0',
        }),
      ).resolves.toBe('{"kind":"Pod"}');
      expect(server.received).toEqual([
        expect.objectContaining({
          method: 'GET',
          url: '/api/v1/namespaces/ns/pods/web-0',
          body: '',
        }),
      ]);
      expect(server.received[0]?.headers['accept']).toBe('application/json');
      expect(server.received[0]?.headers['content-type']).toBeUndefined();
    });

    it('rejects a refused request with the Status message, the status as code and the raw body', async () => {
      const body = JSON.stringify(notFound);
      server.answerWith(json(404, body));
      const path = '/api/v1/namespaces/ns/pods/web-0';
      const error: unknown = await kubeRequest(connection, {
        method: 'GET',
        path,
      }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({
        message: `GET ${path}: pods "web-0" not found`,
        code: 404,
        body,
      });
      expect(httpStatusOf(error)).toBe(404);
      expect(describeError(error)).toBe(
        'HTTP 404 NotFound: pods "web-0" not found',
      );
    });

    it('names the HTTP status when a refusal is not a Status', async () => {
      server.answerWith((_, response) => {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end('upstream unavailable');
      });
      await expect(
        kubeRequest(connection, { method: 'GET', path: '/readyz' }),
      ).rejects.toMatchObject({
        message: 'GET /readyz: HTTP 503',
        code: 503,
        body: 'upstream unavailable',
      });
    });

    it('appends the API path to a server URL with a path prefix', async () => {
      const prefixed = plainConnection(`${server.url}/clusters/east/`);
      expect(prefixed.server).toBe(`${server.url}/clusters/east`);
      await kubeRequest(prefixed, {
        method: 'GET',
        path: '/api/v1/namespaces?limit=1',
      });
      expect(server.received.map((one) => one.url)).toEqual([
        '/clusters/east/api/v1/namespaces?limit=1',
      ]);
    });

    it('sends the headers of the connection, asked anew for each request', async () => {
      let asked = 0;
      const withToken: KubeConnection = {
        server: server.url,
        requestOptions: () => {
          asked += 1;
          return Promise.resolve({
            headers: { authorization: `Bearer token-${asked}` },
          });
        },
      };
      await kubeRequest(withToken, { method: 'GET', path: '/api' });
      await kubeRequest(withToken, { method: 'GET', path: '/api' });
      expect(
        server.received.map((one) => one.headers['authorization']),
      ).toEqual(['Bearer token-1', 'Bearer token-2']);
      expect(server.received[1]?.headers['accept']).toBe('application/json');
    });

    it('rejects when the server does not answer within the timeout', async () => {
      server.answerWith(() => undefined);
      await expect(
        kubeRequest(connection, {
          method: 'GET',
          path: '/slow',
          timeoutMs: 50,
        }),
      ).rejects.toThrow('GET /slow: no answer in 0.05s');
    });

    it('rejects when the server cannot be reached', async () => {
      const { url } = server;
      await server.close();
      await expect(
        kubeRequest(plainConnection(url), { method: 'GET', path: '/api' }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });
  });

  describe('openKubeRequest', () => {
    it('resolves as the answer starts, so that it can be read as a stream, and aborts it', async () => {
      const serverSawClose = new Promise<void>((resolve) =>
        server.answerWith((_, response) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"type":"ADDED"}\n');
          response.on('close', resolve);
        }),
      );
      const { response, abort } = await openKubeRequest(connection, {
        method: 'GET',
        path: '/api/v1/pods?watch=true',
        timeoutMs: 0,
      });
      expect(response.statusCode).toBe(200);
      response.setEncoding('utf8');
      const first = await new Promise<string>((resolve) =>
        response.once('data', resolve),
      );
      expect(first).toBe('{"type":"ADDED"}\n');
      abort();
      await serverSawClose;
    });
  });

  describe('kubeGetJson', () => {
    it('answers the parsed body', async () => {
      server.answerWith(json(200, { kind: 'APIVersions', versions: ['v1'] }));
      await expect(kubeGetJson(connection)('/api')).resolves.toEqual({
        kind: 'APIVersions',
        versions: ['v1'],
      });
      expect(server.received.map((one) => one.method)).toEqual(['GET']);
    });

    it('rejects a refusal as kubeRequest does', async () => {
      server.answerWith(json(404, notFound));
      await expect(kubeGetJson(connection)('/api/v1/x')).rejects.toMatchObject({
        code: 404,
        message: 'GET /api/v1/x: pods "web-0" not found',
      });
    });
  });

  describe('kubeSendJson', () => {
    const echo: Answer = (received, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(received.body);
    };

    it('posts the body as JSON with its content type and length', async () => {
      server.answerWith(json(201, { kind: 'ConfigMap', created: true }));
      const body = { kind: 'ConfigMap', data: { greeting: 'grüß dich' } };
      await expect(
        kubeSendJson(connection)(
          'POST',
          '/api/v1/namespaces/ns/configmaps',
          body,
        ),
      ).resolves.toEqual({ kind: 'ConfigMap', created: true });
      const [received] = server.received;
      expect(received).toMatchObject({
        method: 'POST',
        url: '/api/v1/namespaces/ns/configmaps',
      });
      expect(received?.headers['content-type']).toBe('application/json');
      expect(received?.headers['content-length']).toBe(
        String(Buffer.byteLength(JSON.stringify(body))),
      );
      expect(JSON.parse(received?.body ?? '')).toEqual(body);
    });

    it('sends the given content type, e.g. for a merge patch', async () => {
      server.answerWith(echo);
      await kubeSendJson(connection)(
        'PATCH',
        '/apis/apps/v1/namespaces/ns/deployments/web',
        { spec: { replicas: 2 } },
        'application/merge-patch+json',
      );
      expect(server.received[0]).toMatchObject({ method: 'PATCH' });
      expect(server.received[0]?.headers['content-type']).toBe(
        'application/merge-patch+json',
      );
    });

    it('rejects a refused write with the Status message', async () => {
      server.answerWith(
        json(422, {
          kind: 'Status',
          message: 'admission webhook denied the request',
          reason: 'Invalid',
          code: 422,
        }),
      );
      const error: unknown = await kubeSendJson(connection)(
        'PUT',
        '/x',
        {},
      ).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(describeError(error)).toBe(
        'HTTP 422 Invalid: admission webhook denied the request',
      );
    });

    it('delivers any JSON body intact, multi-byte characters included', async () => {
      server.answerWith(echo);
      const send = kubeSendJson(connection);
      await fc.assert(
        fc.asyncProperty(
          fc.jsonValue({ stringUnit: 'grapheme' }),
          async (value) => {
            const sent = JSON.parse(JSON.stringify(value)) as unknown;
            await expect(send('PUT', '/echo', value)).resolves.toEqual(sent);
          },
        ),
        { numRuns: 50 },
      );
    });
  });
});
