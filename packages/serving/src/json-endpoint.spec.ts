import {
  createServer,
  request,
  type RequestListener,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { AsyncLocalStorageContextManager } from '@tandem/telemetry';
import {
  jsonEndpoint,
  type JsonEndpointOptions,
  type RequestProblem,
} from './json-endpoint.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
const tracer = provider.getTracer('json-endpoint.spec');
const MAX_BYTES = 1024;

let server: Server;
let port: number;
const refused: RequestProblem[] = [];
let answer: JsonEndpointOptions['answer'];

beforeAll(async () => {
  expect(
    context.setGlobalContextManager(new AsyncLocalStorageContextManager()),
  ).toBe(true);
  const fallback: RequestListener = (_request, response) => {
    response.writeHead(404).end('fallback');
  };
  server = createServer(
    jsonEndpoint(
      {
        path: '/',
        maxBytes: MAX_BYTES,
        tracer,
        spanName: 'review',
        answer: (body, span, times) => answer(body, span, times),
        refuse: (problem) => {
          refused.push(problem);
          return { status: problem.status, body: { refused: problem.kind } };
        },
      },
      fallback,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await provider.shutdown();
  context.disable();
});
beforeEach(() => {
  exporter.reset();
  refused.length = 0;
  answer = async (body) => ({ status: 200, body: { echoed: body } });
});

/** Sends `chunks` one write each (chunked, unless a content-length header is given). */
function send(
  chunks: string[],
  headers: Record<string, string> = { 'content-type': 'application/json' },
  { method = 'POST', path = '/' } = {},
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, method, path, headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type']),
            body,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

describe('jsonEndpoint', () => {
  it('answers a JSON POST with the handler’s reply, inside a SERVER span', async () => {
    answer = async (body, span, times) => {
      // The span is active in the handler, so spans started there are its children.
      expect(trace.getActiveSpan()).toBe(span);
      tracer.startSpan('child').end();
      expect(times.parsedAt >= times.receivedAt).toBe(true);
      return { status: 200, body: { echoed: body } };
    };
    const answered = await send(
      ['{"a":', '[1,"é"]}'],
      { 'content-type': 'application/json' },
      // As the API server calls a webhook.
      { path: '/?timeout=10s' },
    );
    expect(answered).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: '{"echoed":{"a":[1,"é"]}}',
    });
    const [child, server] = exporter.getFinishedSpans();
    expect(server).toMatchObject({
      name: 'review',
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'url.path': '/',
        'http.route': '/',
        'http.response.status_code': 200,
      },
      status: { code: SpanStatusCode.UNSET },
    });
    expect(child?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
  });

  it('calls the reply’s `sent` once its bytes are written', async () => {
    const sent: string[] = [];
    answer = async () => ({
      status: 200,
      body: {},
      sent: () => sent.push('sent'),
    });
    await send(['{}']);
    expect(sent).toEqual(['sent']);
  });

  it('hands every other request to the fallback', async () => {
    expect(await send([], {}, { method: 'GET' })).toMatchObject({
      status: 404,
      body: 'fallback',
    });
    expect(
      await send(
        ['{}'],
        { 'content-type': 'application/json' },
        { path: '/x' },
      ),
    ).toMatchObject({ status: 404, body: 'fallback' });
    expect(refused).toEqual([]);
  });

  it.each([
    [
      ['{}'],
      { 'content-type': 'text/plain' },
      415,
      /invalid Content-Type text\/plain/,
    ],
    [['{}'], {}, 415, /invalid Content-Type \(none\)/],
    [
      ['{}'],
      { 'content-type': 'application/json; charset=latin1' },
      415,
      /charset "latin1"/,
    ],
    [
      ['{}'],
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      415,
      /Content-Encoding gzip/,
    ],
    [
      ['{"a":'],
      { 'content-type': 'application/json' },
      400,
      /^request body is not JSON: /,
    ],
    [
      [''],
      { 'content-type': 'application/json' },
      400,
      /^request body is not JSON: /,
    ],
    [
      ['x'.repeat(MAX_BYTES + 1)],
      {
        'content-type': 'application/json',
        'content-length': String(MAX_BYTES + 1),
      },
      413,
      /larger than 1024 bytes/,
    ],
    [
      Array.from({ length: 8 }, () => 'x'.repeat(200)),
      { 'content-type': 'application/json' },
      413,
      /larger than 1024 bytes/,
    ],
  ])(
    'refuses %# (%j) with %i and says why',
    async (chunks, headers, status, message) => {
      const answered = await send(chunks, headers);
      expect(answered.status).toBe(status);
      expect(JSON.parse(answered.body)).toEqual({
        refused: refused[0]?.kind,
      });
      expect(refused).toEqual([
        expect.objectContaining({
          status,
          message: expect.stringMatching(message),
        }),
      ]);
    },
  );

  it('reads a refused body off before answering, so a client still sending it gets the refusal', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const chunks = 128;
    for (const [type, code] of [
      ['application/json', 413],
      ['text/plain', 415],
    ] as const) {
      const answered = await new Promise<{ status: number; sentAll: boolean }>(
        (resolve, reject) => {
          let sentAll = false;
          const outgoing = request(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/',
              headers: {
                'content-type': type,
                'content-length': String(chunk.length * chunks),
              },
            },
            (response) => {
              response.resume();
              resolve({ status: response.statusCode ?? 0, sentAll });
            },
          );
          outgoing.on('error', reject);
          const write = (left: number): void => {
            if (left === 0) {
              outgoing.end(() => (sentAll = true));
              return;
            }
            if (outgoing.write(chunk)) write(left - 1);
            else outgoing.once('drain', () => write(left - 1));
          };
          write(chunks);
        },
      );
      expect(answered).toEqual({ status: code, sentAll: true });
    }
  });

  it('accepts UTF-8 spelled either way, and keeps serving after a refusal', async () => {
    await send(['x'.repeat(2 * MAX_BYTES)]);
    for (const type of [
      'application/json; charset=UTF-8',
      'Application/JSON; charset="utf8"',
    ])
      expect(await send(['1'], { 'content-type': type })).toMatchObject({
        status: 200,
        body: '{"echoed":1}',
      });
  });

  it('answers 500, marked on the span, when the handler rejects or throws', async () => {
    answer = () => Promise.reject(new Error('boom'));
    expect((await send(['{}'])).status).toBe(500);
    expect(refused).toEqual([
      { status: 500, kind: 'internal', message: 'internal error: boom' },
    ]);
    answer = () => {
      throw new Error('thrown');
    };
    expect((await send(['{}'])).status).toBe(500);
    expect(refused.at(-1)?.message).toBe('internal error: thrown');
    expect(exporter.getFinishedSpans()[0]?.status.code).toBe(
      SpanStatusCode.ERROR,
    );
  });
});
