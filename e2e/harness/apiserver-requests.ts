import { request } from 'node:https';
import type { KubeClients } from './kube.ts';

/** Label values an `apiserver_request_total` series must have to be counted. */
export type RequestFilter = Partial<
  Record<'verb' | 'group' | 'resource' | 'subresource', string>
>;

function parseLabels(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [
      name ?? '',
      value ?? '',
    ]),
  );
}

/**
 * How many requests matching `filter` the API server has answered since it started, from
 * its own `apiserver_request_total` counter: a way to check what a process does (or no
 * longer does) without an audit log. Counts every client, so a suite compares differences
 * over a window in which only the process under test makes such requests.
 */
export async function apiServerRequests(
  kube: KubeClients,
  filter: RequestFilter,
): Promise<number> {
  const server = kube.config.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig names no cluster');
  const options: { headers: Record<string, string> } = {
    headers: { accept: 'text/plain' },
  };
  await kube.config.applyToHTTPSOptions(options);
  const body = await new Promise<string>((resolve, reject) => {
    request(new URL('/metrics', server), options, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(text)
          : reject(new Error(`GET /metrics: HTTP ${response.statusCode}`)),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
  let total = 0;
  for (const match of body.matchAll(
    /^apiserver_request_total\{([^}]*)\} (\S+)$/gm,
  )) {
    const labels = parseLabels(match[1] ?? '');
    if (
      Object.entries(filter).every(
        ([name, value]) => labels.get(name) === value,
      )
    )
      total += Number(match[2]);
  }
  return total;
}
