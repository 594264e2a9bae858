import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiStatusOf } from './api-errors.js';

export type GetJson = (path: string) => Promise<unknown>;

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A GET of any API path, parsed as JSON. The generated clients cannot read discovery
 * documents or the collections and subresources of kinds only known at run time; this
 * can, with the kubeconfig's credentials. A failure carries the HTTP status as `code`, like
 * client-node's errors, so `httpStatusOf` reads both.
 */
export function kubeGetJson(kubeConfig: KubeConfig): GetJson {
  return async (path) => {
    const server = kubeConfig.getCurrentCluster()?.server;
    if (server === undefined)
      throw new Error('the kubeconfig names no cluster');
    // Appended, not resolved: a server URL may carry a path prefix (API proxies do).
    const url = new URL(`${server.replace(/\/+$/, '')}${path}`);
    const options: RequestOptions = {
      headers: { accept: 'application/json' },
    };
    await kubeConfig.applyToHTTPSOptions(options);
    const request = url.protocol === 'http:' ? httpRequest : httpsRequest;
    const { status, text } = await new Promise<{
      status: number;
      text: string;
    }>((resolve, reject) => {
      const outgoing = request(url, options, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: body }),
        );
        response.on('error', reject);
      });
      outgoing.setTimeout(REQUEST_TIMEOUT_MS, () =>
        outgoing.destroy(
          new Error(`GET ${path}: no answer in ${REQUEST_TIMEOUT_MS / 1000}s`),
        ),
      );
      outgoing.on('error', reject).end();
    });
    if (status >= 200 && status < 300) return JSON.parse(text) as unknown;
    throw Object.assign(
      new Error(
        `GET ${path}: ${apiStatusOf(text)?.message ?? `HTTP ${status}`}`,
      ),
      { code: status },
    );
  };
}
