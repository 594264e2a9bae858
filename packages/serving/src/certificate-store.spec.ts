import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { plainConnection } from '@tandem/kube';
import { kubeSecretStore, type SecretStore } from './certificate-store.js';

const PATH = '/api/v1/namespaces/tandem/secrets';

interface Seen {
  method: string;
  path: string;
  body: unknown;
}

/** A stand-in API server: answers each request with the next of `answers`. */
async function startApi(answers: { status: number; body: unknown }[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        path: request.url ?? '',
        body: text === '' ? undefined : JSON.parse(text),
      });
      const answer = answers.shift() ?? { status: 500, body: {} };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    seen,
    store: (): SecretStore =>
      kubeSecretStore(plainConnection(url), {
        namespace: 'tandem',
        name: 'certs',
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const status = (code: number, reason: string) => ({
  status: code,
  body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code },
});

const stored = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'certs',
    namespace: 'tandem',
    resourceVersion: '7',
    labels: { app: 'tandem' },
    annotations: { 'tandem.dev/next-ca-staged-at': '2026-01-01T00:00:00Z' },
  },
  type: 'Opaque',
  data: { 'caCert.pem': Buffer.from('CA').toString('base64') },
};

describe('kubeSecretStore', () => {
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  afterEach(() => api?.close());

  it('reads nothing when there is no Secret, then creates it', async () => {
    api = await startApi([
      status(404, 'NotFound'),
      { status: 201, body: stored },
    ]);
    const store = api.store();
    expect(await store.read()).toBeUndefined();
    expect(
      await store.write(
        { data: { 'caCert.pem': 'CA' }, annotations: { a: 'b' } },
        undefined,
      ),
    ).toBe('written');
    expect(api.seen).toEqual([
      { method: 'GET', path: `${PATH}/certs`, body: undefined },
      {
        method: 'POST',
        path: PATH,
        body: {
          metadata: {
            namespace: 'tandem',
            name: 'certs',
            annotations: { a: 'b' },
          },
          type: 'Opaque',
          data: { 'caCert.pem': Buffer.from('CA').toString('base64') },
        },
      },
    ]);
  });

  it('decodes what it reads and replaces it naming that version, keeping its labels', async () => {
    api = await startApi([
      { status: 200, body: stored },
      { status: 200, body: stored },
    ]);
    const store = api.store();
    expect(await store.read()).toEqual({
      data: { 'caCert.pem': 'CA' },
      annotations: stored.metadata.annotations,
      resourceVersion: '7',
    });
    expect(
      await store.write(
        { data: { 'caCert.pem': 'CA2' }, annotations: {} },
        '7',
      ),
    ).toBe('written');
    expect(api.seen[1]).toEqual({
      method: 'PUT',
      path: `${PATH}/certs`,
      body: {
        metadata: {
          namespace: 'tandem',
          name: 'certs',
          resourceVersion: '7',
          labels: { app: 'tandem' },
          annotations: {},
        },
        type: 'Opaque',
        data: { 'caCert.pem': Buffer.from('CA2').toString('base64') },
      },
    });
  });

  it('answers conflict when another replica wrote first, and rejects on other errors', async () => {
    api = await startApi([
      status(409, 'AlreadyExists'),
      status(409, 'Conflict'),
      status(403, 'Forbidden'),
      status(403, 'Forbidden'),
    ]);
    const store = api.store();
    const contents = { data: {}, annotations: {} };
    expect(await store.write(contents, undefined)).toBe('conflict');
    expect(await store.write(contents, '7')).toBe('conflict');
    await expect(store.write(contents, '7')).rejects.toMatchObject({
      code: 403,
    });
    await expect(store.read()).rejects.toMatchObject({ code: 403 });
  });
});
