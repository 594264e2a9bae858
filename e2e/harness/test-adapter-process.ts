import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  writeCertificateFiles,
} from '@tandem/serving';
import {
  registerApiServices,
  unregisterApiServices,
  waitForAvailable,
  type ApiServiceTarget,
} from './adapter-process.ts';
import { nextLogFile } from './app-process.ts';
import type { KubeClients } from './kube.ts';
import { freePort } from './prometheus.ts';
import { httpsGet } from './raw-get.ts';
import { waitFor } from './wait.ts';

/** The build script that puts the test adapter, built from its Go module, in the cache. */
const BUILD_SCRIPT = join(
  import.meta.dirname,
  '..',
  'test-adapter',
  'build.sh',
);

/**
 * Where upstream's test adapter takes metric values: fixed in its main.go (`Addr: ":8080"`),
 * so one test adapter runs per machine at a time (the e2e suites run one at a time).
 */
const WRITE_URL = 'http://127.0.0.1:8080/write-metrics';

/** The provider's Service, as a cluster would have it beside Tandem's. */
export const TEST_ADAPTER_SERVICE: ApiServiceTarget = {
  namespace: 'default',
  name: 'custom-metrics-test-adapter-e2e',
};

export interface TestAdapter {
  /** `https://127.0.0.1:<port>`, the URL `--upstream-provider` is given. */
  url: string;
  port: number;
  /** The PEM file of the CA that signed its serving certificate. */
  caFile: string;
  caPem: string;
  /** Sets `metric` of a namespaced object (`services`, `queue`) to `value`. */
  writeMetric(
    namespace: string,
    resource: string,
    name: string,
    metric: string,
    value: number,
  ): Promise<void>;
  tail(n?: number): string;
  /** Stops the process; the APIServices stay as they are (routed to whoever has them). */
  stop(): Promise<void>;
}

/**
 * The test adapter binary e2e/test-adapter/build.sh built. Never builds (minutes on 2
 * cores, past a test's timeout): a missing binary is an error naming the build command.
 */
function testAdapterBinary(): string {
  try {
    return execFileSync(
      'bash',
      [BUILD_SCRIPT, '--print-bin', '--cached-only'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ).trim();
  } catch (error) {
    throw new Error(
      `the custom-metrics-apiserver test adapter is not built: run \`bash e2e/test-adapter/build.sh\` first. ${(error as { stderr?: string }).stderr ?? ''}`.trim(),
    );
  }
}

/**
 * Starts sigs.k8s.io/custom-metrics-apiserver's test adapter as a host process, with a
 * serving certificate of its own CA and the delegated authentication and authorization
 * every provider built on that library does, and resolves once it serves.
 */
export async function startTestAdapter(
  kubeconfig: string,
): Promise<TestAdapter> {
  const binary = testAdapterBinary();
  if (await writePortAnswers())
    throw new Error(
      `something already listens on ${WRITE_URL}: the test adapter's write port is fixed at 8080`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'tandem-test-adapter-'));
  const ca = createCertificateAuthority({ commonName: 'test-adapter-e2e-ca' });
  const serving = issueServingCertificate(ca, {
    dnsNames: [
      `${TEST_ADAPTER_SERVICE.name}.${TEST_ADAPTER_SERVICE.namespace}.svc`,
      'localhost',
    ],
    ipAddresses: ['127.0.0.1'],
  });
  const files = await writeCertificateFiles(dir, { ca, serving });
  const port = await freePort();
  const caFile = join(dir, 'upstream-ca.pem');
  writeFileSync(caFile, ca.certPem);
  const child: ChildProcess = spawn(
    binary,
    [
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--tls-cert-file=${files.certFile}`,
      `--tls-private-key-file=${files.keyFile}`,
      `--lister-kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--v=2',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logFile = nextLogFile('test-adapter');
  let output = '';
  const record = (chunk: Buffer) => {
    output += chunk.toString();
    if (logFile !== undefined) appendFileSync(logFile, chunk);
  };
  child.stdout?.on('data', record);
  child.stderr?.on('data', record);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => resolve()),
  );
  const tail = (n = 30) => output.trimEnd().split('\n').slice(-n).join('\n');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const url = `https://127.0.0.1:${port}`;
  try {
    await waitFor(
      `the test adapter at ${url} to be ready`,
      async () => {
        if (child.exitCode !== null)
          throw new Error(`the test adapter exited with ${child.exitCode}`);
        const ready = await httpsGet(`${url}/readyz`, { ca: ca.certPem }).catch(
          () => undefined,
        );
        return ready?.status === 200 && (await writePortAnswers())
          ? true
          : undefined;
      },
      { timeoutMs: 60_000 },
      async () => `output tail:\n${tail()}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    port,
    caFile,
    caPem: ca.certPem,
    writeMetric: (namespace, resource, name, metric, value) =>
      post(
        `${WRITE_URL}/namespaces/${namespace}/${resource}/${name}/${metric}`,
        JSON.stringify(String(value)),
      ),
    tail,
    stop,
  };
}

/** Registers `adapter` as custom.metrics.k8s.io, as its provider's install would. */
export async function registerTestAdapter(
  kube: KubeClients,
  adapter: TestAdapter,
): Promise<void> {
  await registerApiServices(
    kube,
    adapter.port,
    adapter.caPem,
    TEST_ADAPTER_SERVICE,
  );
  await waitForAvailable(kube, () => adapter.tail(20));
}

/** Deletes the group's APIServices and the test adapter's Service. */
export function unregisterTestAdapter(kube: KubeClients): Promise<void> {
  return unregisterApiServices(kube, TEST_ADAPTER_SERVICE);
}

async function writePortAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request(
      `${WRITE_URL}/`,
      { method: 'GET', timeout: 2_000 },
      (response) => {
        response.resume();
        resolve(true);
      },
    );
    probe.on('timeout', () => probe.destroy());
    probe.on('error', () => resolve(false)).end();
  });
}

function post(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve()
            : reject(
                new Error(`POST ${url}: HTTP ${response.statusCode}: ${text}`),
              ),
        );
      },
    );
    outgoing.on('error', reject).end(body);
  });
}
