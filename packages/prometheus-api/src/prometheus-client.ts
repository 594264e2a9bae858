import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { apiResponseData } from './prometheus-response.js';

/** One HTTP request to Prometheus, as promhttp labels it: status code (`error` when no answer came) and lowercase method. */
export interface PrometheusRequestSeen {
  readonly code: string;
  readonly method: 'get' | 'post';
  readonly seconds: number;
}

export interface PrometheusClientOptions {
  /** The server, e.g. `http://prometheus.monitoring.svc` (a path prefix is kept). */
  readonly address: string;
  /** `--prometheus-insecure`: do not verify the server's TLS certificate. */
  readonly insecure: boolean;
  /** The whole query, including a GET retry; named in the timeout's error as `timeoutFlag`. */
  readonly queryTimeoutMs: number;
  /** The Authorization header value, if any (see authorizationHeader). */
  readonly authorization: string | undefined;
  /** The flag that sets `queryTimeoutMs`, for the error that says it ran out. */
  readonly timeoutFlag: string;
  /** Told of every HTTP request once it ends, to count it. */
  readonly onRequest?: (request: PrometheusRequestSeen) => void;
}

export interface QueryRange {
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
}

/** The two Prometheus HTTP API calls history loads need; both resolve to the answer's `data`. */
export interface PrometheusClient {
  queryRange(query: string, range: QueryRange): Promise<unknown>;
  query(query: string, timeMs: number): Promise<unknown>;
}

/** Prometheus takes times and steps as (fractional) seconds. */
const seconds = (ms: number) => String(ms / 1000);

/** Node's connection errors may have an empty message (e.g. an AggregateError of two addresses). */
function requestErrorText(error: unknown): string {
  const { message, code } = error as NodeJS.ErrnoException;
  return message || code || String(error);
}

interface RawResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * A client for `/api/v1/query_range` and `/api/v1/query`. Like Prometheus's Go client it
 * POSTs the parameters as a form and falls back to GET when the server (or a proxy) does
 * not allow POST (405/501). Every HTTP request is reported to `onRequest`.
 */
export function prometheusClient(
  options: PrometheusClientOptions,
): PrometheusClient {
  const base = new URL(options.address);
  const secure = base.protocol === 'https:';
  const agent =
    secure && options.insecure
      ? new Agent({ rejectUnauthorized: false })
      : undefined;
  const headers: Record<string, string> =
    options.authorization === undefined
      ? {}
      : { authorization: options.authorization };

  const send = (
    method: 'GET' | 'POST',
    url: URL,
    form: string,
    signal: AbortSignal,
  ): Promise<RawResponse> => {
    const target = method === 'GET' ? new URL(`?${form}`, url) : url;
    const requestHeaders =
      method === 'POST'
        ? {
            ...headers,
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': String(Buffer.byteLength(form)),
          }
        : headers;
    const started = performance.now();
    const count = (code: string) =>
      options.onRequest?.({
        code,
        method: method === 'GET' ? 'get' : 'post',
        seconds: (performance.now() - started) / 1000,
      });
    return new Promise<RawResponse>((resolve, reject) => {
      const onResponse = (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          count(String(response.statusCode));
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      };
      const outgoing = (secure ? httpsRequest : httpRequest)(
        target,
        { method, headers: requestHeaders, signal, agent },
        onResponse,
      );
      outgoing.on('error', (error) => {
        count('error');
        reject(error);
      });
      outgoing.end(method === 'POST' ? form : undefined);
    });
  };

  const call = async (
    endpoint: string,
    params: Record<string, string>,
  ): Promise<unknown> => {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/${endpoint}`;
    url.search = '';
    const form = new URLSearchParams(params).toString();
    const signal = AbortSignal.timeout(options.queryTimeoutMs);
    try {
      let response = await send('POST', url, form, signal);
      if (response.status === 405 || response.status === 501)
        response = await send('GET', url, form, signal);
      return apiResponseData(response.status, response.body);
    } catch (error) {
      const reason = signal.aborted
        ? `no answer within ${options.timeoutFlag} (${options.queryTimeoutMs} ms)`
        : requestErrorText(error);
      throw new Error(`${url.href}: ${reason}`, { cause: error });
    }
  };

  return {
    queryRange: (query, range) =>
      call('query_range', {
        query,
        start: seconds(range.startMs),
        end: seconds(range.endMs),
        step: seconds(range.stepMs),
      }),
    query: (query, timeMs) => call('query', { query, time: seconds(timeMs) }),
  };
}
