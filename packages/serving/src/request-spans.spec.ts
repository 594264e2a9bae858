import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import express from 'express';
import { AsyncLocalStorageContextManager } from '@tandem/telemetry';
import { requestSpans } from './request-spans.js';
import { waitFor } from './wait.fixtures.js';

// The real SDK: an in-memory exporter behind a synchronous processor.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
const tracer = provider.getTracer('request-spans.spec');

/** Serves `app` on 127.0.0.1 for the duration of `fn`. */
async function serving(
  app: express.Express,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

const finished = () => exporter.getFinishedSpans();
const serverSpans = () =>
  finished().filter((span) => span.kind === SpanKind.SERVER);

beforeAll(() => {
  expect(
    context.setGlobalContextManager(new AsyncLocalStorageContextManager()),
  ).toBe(true);
});
afterAll(async () => {
  await provider.shutdown();
  context.disable();
});
beforeEach(() => exporter.reset());

describe('requestSpans', () => {
  const app = express();
  app.use(requestSpans(tracer));
  app.get('/items/:id', async (request, response) => {
    const span = response.locals['span'] as Span;
    // The request span is active in the handler, also after an await...
    await new Promise((resolve) => setImmediate(resolve));
    expect(trace.getActiveSpan()).toBe(span);
    // ...so spans started here are its children.
    tracer.startSpan('load_item').end();
    span.setAttribute('item.id', request.params['id'] ?? '');
    response.json({ id: request.params['id'] });
  });
  app.get('/broken', (_request, response) => {
    response.status(500).json({ error: 'store unavailable' });
  });
  app.get('/throws', () => {
    throw new Error('boom');
  });
  const api = express.Router();
  api.get('/namespaces/:namespace/pods/:pod', (_request, response) => {
    response.json({});
  });
  app.use('/apis/custom.metrics.k8s.io/v1beta1', api);
  app.get('/hangs', (_request, response) => {
    response.write('partial');
    response.socket?.destroy();
  });

  it('makes one SERVER span per request, named after the route, with the HTTP attributes', async () => {
    await serving(app, async (url) => {
      const response = await fetch(`${url}/items/42?verbose=1`);
      expect(await response.json()).toEqual({ id: '42' });
    });
    await waitFor(() => serverSpans().length === 1, 'the request span');
    const [span] = serverSpans();
    expect(span?.name).toBe('GET /items/:id');
    expect(span?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/items/42',
      'http.route': '/items/:id',
      'http.response.status_code': 200,
      'item.id': '42',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.ended).toBe(true);
    expect(span?.parentSpanContext).toBeUndefined();

    const child = finished().find(
      (candidate) => candidate.name === 'load_item',
    );
    expect(child?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
    expect(child?.spanContext().traceId).toBe(span?.spanContext().traceId);
  });

  it('includes the mount path of a router in the route', async () => {
    await serving(app, async (url) => {
      await (
        await fetch(
          `${url}/apis/custom.metrics.k8s.io/v1beta1/namespaces/shop/pods/web-1`,
        )
      ).text();
    });
    await waitFor(() => serverSpans().length === 1, 'the request span');
    expect(serverSpans()[0]?.name).toBe(
      'GET /apis/custom.metrics.k8s.io/v1beta1/namespaces/:namespace/pods/:pod',
    );
  });

  it('marks 5xx responses, thrown errors included, as errors', async () => {
    await serving(app, async (url) => {
      expect((await fetch(`${url}/broken`)).status).toBe(500);
      expect((await fetch(`${url}/throws`)).status).toBe(500);
    });
    await waitFor(() => serverSpans().length === 2, 'both request spans');
    for (const span of serverSpans()) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['http.response.status_code']).toBe(500);
      expect(span.ended).toBe(true);
    }
  });

  it('names a request no route matched after its path, and leaves 4xx unset', async () => {
    await serving(app, async (url) => {
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    });
    await waitFor(() => serverSpans().length === 1, 'the request span');
    const [span] = serverSpans();
    expect(span?.name).toBe('GET /nowhere');
    expect(span?.attributes['http.route']).toBeUndefined();
    expect(span?.attributes['http.response.status_code']).toBe(404);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the span with an error when the connection closes mid-response', async () => {
    await serving(app, async (url) => {
      await expect(
        fetch(`${url}/hangs`).then((response) => response.text()),
      ).rejects.toThrow();
    });
    await waitFor(() => serverSpans().length === 1, 'the request span');
    expect(serverSpans()[0]?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'connection closed before the response was complete',
    });
  });

  it('uses spanName when given', async () => {
    const named = express();
    named.use(requestSpans(tracer, (request) => `admission ${request.method}`));
    named.post('/mutate', (_request, response) => {
      response.json({});
    });
    await serving(named, async (url) => {
      await (await fetch(`${url}/mutate`, { method: 'POST' })).text();
    });
    await waitFor(() => serverSpans().length === 1, 'the request span');
    const [span] = serverSpans();
    expect(span?.name).toBe('admission POST');
    expect(span?.attributes['http.route']).toBe('/mutate');
  });
});
