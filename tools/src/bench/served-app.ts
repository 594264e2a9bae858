import { spawn, type ChildProcess } from 'node:child_process';
import { get, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  createCertificateAuthority,
  issueServingCertificate,
  writeCertificateFiles,
  type CertificateFiles,
  type CertificatePair,
} from '@tandem/serving';

/** A CA and a serving pair for 127.0.0.1, written into `dir` under upstream's file names. */
export async function loopbackCertificates(
  dir: string,
): Promise<{ ca: CertificatePair; files: CertificateFiles }> {
  const ca = createCertificateAuthority();
  const files = await writeCertificateFiles(dir, {
    ca,
    serving: issueServingCertificate(ca, {
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
    }),
  });
  return { ca, files };
}

export interface ServedApp {
  process: ChildProcess;
  /** The `url` of the app's `serverMessage` log line (its HTTPS server). */
  serverUrl: string;
  /** Its ops server (/metrics, /healthz, /readyz). */
  opsUrl: string;
}

/**
 * Spawns a Tandem app that serves HTTPS (the webhook, the adapter) and resolves once both
 * its servers have logged their URL and its /readyz answers 200 (caches synced). Start-up
 * output is kept for the failure message; the rest is drained, not kept.
 */
export async function startServedApp({
  what,
  nodeArgs = [],
  bin,
  args,
  serverMessage,
  opsMessage = 'ops server listening',
  readyTimeoutMs = 60_000,
}: {
  what: string;
  nodeArgs?: string[];
  bin: string;
  args: string[];
  serverMessage: string;
  /** The log line of the server of /readyz: the dashboard serves it beside its pages. */
  opsMessage?: string;
  readyTimeoutMs?: number;
}): Promise<ServedApp> {
  const child = spawn(process.execPath, [...nodeArgs, bin, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk.toString();
  });
  const logged = (message: string) =>
    output
      .split('\n')
      .filter((line) => line.includes(`"msg":"${message}"`))
      .map((line) => JSON.parse(line) as { url: string })[0]
      ?.url.replace(/\/$/, '');
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const serverUrl = logged(serverMessage);
    const opsUrl = logged(opsMessage);
    if (
      serverUrl !== undefined &&
      opsUrl !== undefined &&
      (await ready(opsUrl))
    )
      return { process: child, serverUrl, opsUrl };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `the ${what} did not become ready; output:\n${output.slice(-2000)}`,
      );
    }
    await sleep(200);
  }
}

/** SIGTERM, so a CPU profile gets written; SIGKILL if it has not exited in 15 s. */
export async function stopServedApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => resolve()),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function ready(opsUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    request(`${opsUrl}/readyz`, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    })
      .on('error', () => resolve(false))
      .end();
  });
}

/** A GET's body; rejects unless the answer is 200. */
export function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(body)
          : reject(new Error(`${url}: HTTP ${response.statusCode}: ${body}`)),
      );
    }).on('error', reject);
  });
}

/**
 * Spawns `fixed-answer-server.main.js` (a bare HTTPS server answering every request with
 * `bytes` of JSON) and resolves with its process and URL once it listens.
 */
export async function startFixedAnswerServer(
  files: { certFile: string; keyFile: string },
  bytes: number,
): Promise<{ process: ChildProcess; url: string }> {
  const script = fileURLToPath(
    new URL('fixed-answer-server.main.js', import.meta.url),
  );
  const child = spawn(
    process.execPath,
    [script, files.certFile, files.keyFile, String(bytes)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^\{"port":(\d+)\}$/m.exec(output);
      if (line !== null) resolve(Number(line[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`the fixed-answer server exited with ${code}`)),
    );
  });
  return { process: child, url: `https://127.0.0.1:${port}/` };
}
