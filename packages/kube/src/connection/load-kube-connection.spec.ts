import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import type { KubeConnection } from './kube-connection.js';
import { kubeGetJson } from './kube-request.js';
import {
  loadKubeConnection,
  TOKEN_FILE_REREAD_MS,
} from './load-kube-connection.js';

/** What the stand-in API server saw of a request. */
interface Echo {
  path: string;
  authorization: string | null;
  /** The common name of a client certificate the server's CA vouches for. */
  clientCommonName: string | null;
}

function echo(
  request: IncomingMessage,
  response: ServerResponse<IncomingMessage>,
): void {
  const socket = request.socket as Partial<TLSSocket>;
  const body: Echo = {
    path: request.url ?? '',
    authorization: request.headers.authorization ?? null,
    clientCommonName:
      socket.authorized === true
        ? String(socket.getPeerCertificate?.().subject.CN)
        : null,
  };
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const dir = mkdtempSync(join(tmpdir(), 'tandem-kube-connection-'));
const inDir = (name: string) => join(dir, name);
const read = (name: string) => readFileSync(inDir(name), 'utf8');
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** A throwaway P-256 certificate and key, self-signed or signed by `ca`, in `dir`. */
function issue(
  name: string,
  commonName: string,
  extensions: string[],
  ca?: string,
): { cert: string; key: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...(ca === undefined ? [] : ['-CA', `${ca}.crt`, '-CAkey', `${ca}.key`]),
      ...['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', `${name}.key`, '-out', `${name}.crt`],
      ...['-subj', `/CN=${commonName}`, '-days', '1'],
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  return { cert: read(`${name}.crt`), key: read(`${name}.key`) };
}

/** Writes a kubeconfig with one context `x` of cluster `c` and user `u`. */
function writeKubeconfig(
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown> = {},
): string {
  const path = inDir(name);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return path;
}

const get = (connection: KubeConnection, path = '/api') =>
  kubeGetJson(connection)(path) as Promise<Echo>;

/** A kubeconfig file's connection, isolated from the environment of the test run. */
const load = (kubeconfigPath: string, context?: string) =>
  loadKubeConnection({ kubeconfigPath, context, env: {} });

describe('loadKubeConnection', () => {
  let ca: { cert: string; key: string };
  let http: Server;
  let httpUrl: string;
  let https: Server;
  let httpsPort: number;

  beforeAll(async () => {
    ca = issue('ca', 'tandem-test-ca', []);
    const leaf = 'basicConstraints=critical,CA:FALSE';
    const serving = issue(
      'server',
      'kube.internal',
      [leaf, 'subjectAltName=DNS:kube.internal,IP:127.0.0.1'],
      'ca',
    );
    issue('client', 'alice', [leaf, 'extendedKeyUsage=clientAuth'], 'ca');
    http = createHttpServer(echo);
    httpUrl = `http://127.0.0.1:${await listen(http)}`;
    https = createHttpsServer(
      {
        ...serving,
        ca: ca.cert,
        requestCert: true,
        rejectUnauthorized: false,
      },
      echo,
    );
    httpsPort = await listen(https);
  });

  afterAll(async () => {
    await Promise.all([close(http), close(https)]);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('from kubeconfig files', () => {
    it('sends the bearer token of an explicit file to its server, path prefix included', async () => {
      const connection = await load(
        writeKubeconfig(
          'token.yaml',
          { server: `${httpUrl}/prefix/` },
          { token: 't0k3n' },
        ),
      );
      expect(connection.server).toBe(`${httpUrl}/prefix`);
      await expect(get(connection)).resolves.toEqual({
        path: '/prefix/api',
        authorization: 'Bearer t0k3n',
        clientCommonName: null,
      });
    });

    it('sends basic auth for a username and password', async () => {
      const connection = await load(
        writeKubeconfig(
          'basic.yaml',
          { server: httpUrl },
          { username: 'alice', password: 's3cret' },
        ),
      );
      await expect(get(connection)).resolves.toMatchObject({
        authorization: `Basic ${base64('alice:s3cret')}`,
      });
    });

    it('sends no authorization for a user without credentials', async () => {
      const connection = await load(
        writeKubeconfig('anonymous.yaml', { server: httpUrl }),
      );
      await expect(connection.requestOptions()).resolves.not.toHaveProperty(
        'headers',
      );
      await expect(get(connection)).resolves.toMatchObject({
        authorization: null,
      });
    });

    it('merges the files of KUBECONFIG, the first definition of a name winning, and selects the context', async () => {
      const first = inDir('merge-first.yaml');
      writeFileSync(
        first,
        stringify({
          clusters: [
            { name: 'unused', cluster: { server: 'https://unused.invalid' } },
          ],
          users: [{ name: 'u', user: { token: 'from-first' } }],
          contexts: [{ name: 'one', context: { cluster: 'unused' } }],
          'current-context': 'one',
        }),
      );
      const second = inDir('merge-second.yaml');
      writeFileSync(
        second,
        stringify({
          clusters: [{ name: 'local', cluster: { server: httpUrl } }],
          users: [{ name: 'u', user: { token: 'from-second' } }],
          contexts: [{ name: 'two', context: { cluster: 'local', user: 'u' } }],
        }),
      );
      const connection = await loadKubeConnection({
        env: { KUBECONFIG: [first, second].join(delimiter) },
        context: 'two',
      });
      expect(connection.server).toBe(httpUrl);
      await expect(get(connection)).resolves.toMatchObject({
        authorization: 'Bearer from-first',
      });
    });

    it('names the files and the known contexts when the context does not exist', async () => {
      const path = writeKubeconfig('contexts.yaml', { server: httpUrl });
      await expect(load(path, 'nope')).rejects.toThrow(
        `context nope is not in ${path} (explicit); known contexts: x`,
      );
    });

    describe('a token file', () => {
      afterEach(() => jest.useRealTimers());

      it('is read relative to the kubeconfig, trimmed, and read again only after TOKEN_FILE_REREAD_MS', async () => {
        const start = Date.parse('2030-01-01T00:00:00Z');
        jest.useFakeTimers({
          now: start,
          doNotFake: [
            'hrtime',
            'nextTick',
            'performance',
            'queueMicrotask',
            'requestAnimationFrame',
            'cancelAnimationFrame',
            'requestIdleCallback',
            'cancelIdleCallback',
            'setImmediate',
            'clearImmediate',
            'setInterval',
            'clearInterval',
            'setTimeout',
            'clearTimeout',
          ],
        });
        mkdirSync(inDir('rotating'), { recursive: true });
        writeFileSync(inDir('rotating/token'), 'first\n');
        const connection = await load(
          writeKubeconfig(
            'rotating/config',
            { server: httpUrl },
            { tokenFile: 'token' },
          ),
        );
        const header = async () => {
          const { headers } = await connection.requestOptions();
          return (headers as Record<string, unknown> | undefined)?.[
            'authorization'
          ];
        };
        await expect(get(connection)).resolves.toMatchObject({
          authorization: 'Bearer first',
        });
        writeFileSync(inDir('rotating/token'), 'second\n');
        jest.setSystemTime(start + TOKEN_FILE_REREAD_MS - 1);
        await expect(header()).resolves.toBe('Bearer first');
        jest.setSystemTime(start + TOKEN_FILE_REREAD_MS);
        await expect(header()).resolves.toBe('Bearer second');
        writeFileSync(inDir('rotating/token'), 'third\n');
        jest.setSystemTime(start + 2 * TOKEN_FILE_REREAD_MS - 1);
        await expect(header()).resolves.toBe('Bearer second');
      });
    });
  });

  describe('over TLS', () => {
    const httpsUrl = () => `https://127.0.0.1:${httpsPort}`;

    it('trusts the server through a certificate-authority file relative to the kubeconfig', async () => {
      const connection = await load(
        writeKubeconfig(
          'ca-file.yaml',
          { server: httpsUrl(), 'certificate-authority': 'ca.crt' },
          { token: 'over-tls' },
        ),
      );
      await expect(get(connection)).resolves.toEqual({
        path: '/api',
        authorization: 'Bearer over-tls',
        clientCommonName: null,
      });
    });

    it('prefers certificate-authority-data to a certificate-authority file, which it does not read', async () => {
      const connection = await load(
        writeKubeconfig('ca-data.yaml', {
          server: httpsUrl(),
          'certificate-authority-data': base64(ca.cert),
          'certificate-authority': 'missing-ca.crt',
        }),
      );
      await expect(get(connection)).resolves.toMatchObject({ path: '/api' });
    });

    it('refuses a server whose certificate no configured CA vouches for', async () => {
      const connection = await load(
        writeKubeconfig('no-ca.yaml', { server: httpsUrl() }),
      );
      // The stand-in server sends its CA in the chain (it also checks client certificates).
      await expect(get(connection)).rejects.toMatchObject({
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
      });
    });

    it('skips verification with insecure-skip-tls-verify', async () => {
      const connection = await load(
        writeKubeconfig('insecure.yaml', {
          server: httpsUrl(),
          'insecure-skip-tls-verify': true,
        }),
      );
      await expect(get(connection)).resolves.toMatchObject({ path: '/api' });
    });

    it('checks the server certificate against tls-server-name instead of the host', async () => {
      const named = (name: string) =>
        load(
          writeKubeconfig(`server-name-${name}.yaml`, {
            server: httpsUrl(),
            'certificate-authority-data': base64(ca.cert),
            'tls-server-name': name,
          }),
        );
      await expect(get(await named('kube.internal'))).resolves.toMatchObject({
        path: '/api',
      });
      await expect(get(await named('other.internal'))).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
    });

    it('authenticates with client-certificate-data and client-key-data', async () => {
      const connection = await load(
        writeKubeconfig(
          'client-data.yaml',
          { server: httpsUrl(), 'certificate-authority': 'ca.crt' },
          {
            'client-certificate-data': base64(read('client.crt')),
            'client-key-data': base64(read('client.key')),
          },
        ),
      );
      await expect(get(connection)).resolves.toMatchObject({
        clientCommonName: 'alice',
        authorization: null,
      });
    });

    it('authenticates with client-certificate and client-key files', async () => {
      const connection = await load(
        writeKubeconfig(
          'client-files.yaml',
          { server: httpsUrl(), 'certificate-authority': 'ca.crt' },
          { 'client-certificate': 'client.crt', 'client-key': 'client.key' },
        ),
      );
      await expect(get(connection)).resolves.toMatchObject({
        clientCommonName: 'alice',
      });
    });

    it('prefers client certificate and key data to files, which it does not read', async () => {
      const connection = await load(
        writeKubeconfig(
          'client-both.yaml',
          { server: httpsUrl(), 'certificate-authority': 'ca.crt' },
          {
            'client-certificate-data': base64(read('client.crt')),
            'client-key-data': base64(read('client.key')),
            'client-certificate': 'missing.crt',
            'client-key': 'missing.key',
          },
        ),
      );
      await expect(get(connection)).resolves.toMatchObject({
        clientCommonName: 'alice',
      });
    });
  });

  describe('in a pod', () => {
    const serviceAccountDir = inDir('serviceaccount');

    beforeAll(() => {
      mkdirSync(serviceAccountDir, { recursive: true });
      writeFileSync(join(serviceAccountDir, 'token'), 'sa-token\n');
      writeFileSync(join(serviceAccountDir, 'ca.crt'), read('ca.crt'));
    });

    const inCluster = (host: string, port: string) =>
      loadKubeConnection({
        env: { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port },
        serviceAccountDir,
      });

    it('reaches https://host:port with the service account CA and token', async () => {
      const connection = await inCluster('127.0.0.1', String(httpsPort));
      expect(connection.server).toBe(`https://127.0.0.1:${httpsPort}`);
      await expect(connection.requestOptions()).resolves.toMatchObject({
        ca: ca.cert,
        headers: { authorization: 'Bearer sa-token' },
      });
      await expect(get(connection)).resolves.toEqual({
        path: '/api',
        authorization: 'Bearer sa-token',
        clientCommonName: null,
      });
    });

    it('brackets an IPv6 service host', async () => {
      const connection = await inCluster('fd00:10:96::1', '443');
      expect(connection.server).toBe('https://[fd00:10:96::1]:443');
    });
  });

  describe('credential plugins, handed to client-node', () => {
    it('runs an exec plugin and sends the token it prints', async () => {
      const credential = {
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { token: 'from-exec' },
      };
      const connection = await load(
        writeKubeconfig(
          'exec.yaml',
          // client-node speaks plain HTTP only with insecure-skip-tls-verify.
          { server: `${httpUrl}/`, 'insecure-skip-tls-verify': true },
          {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: 'echo',
              args: [JSON.stringify(credential)],
              interactiveMode: 'Never',
            },
          },
        ),
      );
      expect(connection.server).toBe(httpUrl);
      await expect(connection.requestOptions()).resolves.toMatchObject({
        headers: { Authorization: 'Bearer from-exec' },
      });
      await expect(get(connection)).resolves.toMatchObject({
        authorization: 'Bearer from-exec',
      });
      // client-node spawns the plugin for each of the two asks: on a 2-core machine busy
      // with an end-to-end run (load average 10) that took over Jest's default 5 s.
    }, 30_000);

    it('sends the id-token of an oidc auth-provider', async () => {
      const part = (value: unknown) =>
        Buffer.from(JSON.stringify(value)).toString('base64url');
      // Unsigned: client-node only reads its expiry, in 2100.
      const idToken = `${part({ alg: 'none' })}.${part({ exp: 4_102_444_800 })}.x`;
      const connection = await load(
        writeKubeconfig(
          'oidc.yaml',
          { server: httpUrl, 'insecure-skip-tls-verify': true },
          {
            'auth-provider': { name: 'oidc', config: { 'id-token': idToken } },
          },
        ),
      );
      await expect(get(connection)).resolves.toMatchObject({
        authorization: `Bearer ${idToken}`,
      });
    });
  });
});
