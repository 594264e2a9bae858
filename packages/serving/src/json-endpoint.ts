import type {
  IncomingMessage,
  RequestListener,
  ServerResponse,
} from 'node:http';
import { context, type Span, type Tracer } from '@opentelemetry/api';
import { errorMessage } from './error-message.js';
import { startServerSpan } from './server-span.js';

/** Why a request was answered without its handler: the status, a kind to count it by, and a message. */
export interface RequestProblem {
  status: 400 | 413 | 415 | 500;
  kind: 'malformed' | 'oversized' | 'unsupported-media-type' | 'internal';
  message: string;
}

/** An answer: sent as JSON (UTF-8) with this status. */
export interface JsonReply {
  status: number;
  body: unknown;
  /** Called once the answer is written (handed to the connection): to time and log it. */
  sent?: () => void;
}

/** When the request's headers arrived and when its body had been read and parsed. */
export interface RequestTimes {
  /** `process.hrtime.bigint()` at the headers. */
  receivedAt: bigint;
  /** `process.hrtime.bigint()` once the body was parsed. */
  parsedAt: bigint;
}

export interface JsonEndpointOptions {
  /**
   * Served for `POST` requests to this path, whatever their query string (the API server
   * adds `?timeout=10s` to a webhook's URL).
   */
  path: string;
  /** The largest body read; a larger one is refused with 413 (`oversized`). */
  maxBytes: number;
  tracer: Tracer;
  /** The name of every request's SERVER span. */
  spanName: string;
  /** Answers a parsed body, inside its span's context. A rejection is answered with 500. */
  answer(body: unknown, span: Span, times: RequestTimes): Promise<JsonReply>;
  /** The answer to a request whose body could not be used, or whose `answer` rejected. */
  refuse(problem: RequestProblem, span: Span): JsonReply;
}

const JSON_TYPE = 'application/json';

/**
 * A request listener that serves one JSON `POST` endpoint itself and hands every other
 * request to `fallback` (an express app: health, metrics, 404s). The endpoint is the hot
 * path of the webhook, called by the API server on every pod creation: it reads the body
 * into one buffer, parses it once and writes one answer, without express's routing, body
 * parser and response helpers, which cost as much CPU per request as TLS and HTTP together
 * (ADR 0038). Its span is the one `requestSpans` would make, `http.route` the path.
 *
 * Refused, before the handler: a Content-Type other than application/json (415), a charset
 * other than UTF-8 (415), a Content-Encoding (415: the API server sends none), a body over
 * `maxBytes` (413, decided from Content-Length when declared; the body is read off and
 * dropped, never kept), a body that is not JSON (400). A refusal is sent once the body has
 * been read, so that the client is never cut off while still sending it.
 */
export function jsonEndpoint(
  options: JsonEndpointOptions,
  fallback: RequestListener,
): RequestListener {
  return (request, response) => {
    if (request.method !== 'POST' || !isPath(request.url, options.path)) {
      fallback(request, response);
      return;
    }
    const receivedAt = process.hrtime.bigint();
    const { span, active } = startServerSpan(
      options.tracer,
      {
        name: options.spanName,
        method: 'POST',
        path: options.path,
        headers: request.headers,
      },
      response,
    );
    span.setAttribute('http.route', options.path);
    const refuse = (problem: RequestProblem): void => {
      send(response, options.refuse(problem, span));
    };
    const unusable = headerProblem(request, options.maxBytes);
    if (unusable !== undefined) {
      afterBody(request, () => refuse(unusable));
      return;
    }
    readBody(request, options.maxBytes, (body) => {
      if (body === undefined) {
        refuse(oversized(options.maxBytes));
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (error) {
        refuse({
          status: 400,
          kind: 'malformed',
          message: `request body is not JSON: ${errorMessage(error)}`,
        });
        return;
      }
      const times = { receivedAt, parsedAt: process.hrtime.bigint() };
      context
        // async: a handler that throws instead of rejecting is answered with 500 too.
        .with(active, async () => options.answer(parsed, span, times))
        .then(
          (reply) => send(response, reply),
          (error: unknown) =>
            refuse({
              status: 500,
              kind: 'internal',
              message: `internal error: ${errorMessage(error)}`,
            }),
        );
    });
  };
}

/** What the headers alone make unusable: the media type, its charset, an encoding, the size. */
function headerProblem(
  request: IncomingMessage,
  maxBytes: number,
): RequestProblem | undefined {
  const contentType = request.headers['content-type'];
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  if (mediaType.trim().toLowerCase() !== JSON_TYPE)
    return unsupported(
      `invalid Content-Type ${contentType ?? '(none)'}, expected ${JSON_TYPE}`,
    );
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    const charset = value.trim().replace(/^"(.*)"$/, '$1');
    if (name.trim().toLowerCase() === 'charset' && !/^utf-?8$/i.test(charset))
      return unsupported(`unsupported charset "${charset}", expected utf-8`);
  }
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    return unsupported(
      `unsupported Content-Encoding ${encoding}: send the body uncompressed`,
    );
  if (Number(request.headers['content-length'] ?? 0) > maxBytes)
    return oversized(maxBytes);
  return undefined;
}

/**
 * Calls `done` with the whole body, or with undefined once a body that grew past
 * `maxBytes` has been read to its end (and dropped). Nothing is called for a request the
 * client abandoned: its span ends with the connection.
 */
function readBody(
  request: IncomingMessage,
  maxBytes: number,
  done: (body: Buffer | undefined) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
    else chunks.length = 0;
  });
  request.on('end', () => {
    if (size > maxBytes) done(undefined);
    else
      done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  });
}

/**
 * Runs `answer` once the request's body has been read off and dropped, as body-parser
 * does: a client still sending a body it was refused for would otherwise meet a closed
 * connection (EPIPE) instead of the refusal.
 */
function afterBody(request: IncomingMessage, answer: () => void): void {
  if (request.readableEnded) {
    answer();
    return;
  }
  request.once('end', answer);
  request.resume();
}

function isPath(url: string | undefined, path: string): boolean {
  return (
    url !== undefined &&
    url.startsWith(path) &&
    (url.length === path.length || url[path.length] === '?')
  );
}

function send(response: ServerResponse, reply: JsonReply): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(reply.body);
  response.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
  reply.sent?.();
}

function unsupported(message: string): RequestProblem {
  return { status: 415, kind: 'unsupported-media-type', message };
}

function oversized(maxBytes: number): RequestProblem {
  return {
    status: 413,
    kind: 'oversized',
    message: `request body larger than ${maxBytes} bytes`,
  };
}
