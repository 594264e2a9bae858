import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { context, logs, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from './context-manager.js';
import { inSpan } from './in-span.js';
import { capture } from './log-capture.fixtures.js';
import {
  startTelemetry as startTelemetryUntracked,
  type TelemetryOptions,
} from './telemetry.js';

// ---------------------------------------------------------------------------------------
// A real OTLP/HTTP trace receiver: POST /v1/traces with a JSON ExportTraceServiceRequest,
// answered with 200 and an empty ExportTraceServiceResponse.

interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpKeyValue[];
  events?: { name: string; attributes?: OtlpKeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: {
      scope: { name: string; version?: string };
      spans: OtlpSpan[];
    }[];
  }[];
}
interface Received {
  method: string | undefined;
  path: string | undefined;
  contentType: string | undefined;
  body: OtlpRequest;
}

interface Receiver {
  endpoint: string;
  requests: Received[];
  close(): Promise<void>;
}

async function startReceiver(status = 200): Promise<Receiver> {
  const requests: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      requests.push({
        method: request.method,
        path: request.url,
        contentType: request.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest,
      });
      response
        .writeHead(status, { 'Content-Type': 'application/json' })
        .end(status === 200 ? '{}' : '{"code":3,"message":"rejected by test"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

// Every instance a test starts is shut down after it, even when an assertion fails first,
// so a failing test cannot leave the global tracer provider owned for the next ones.
const started: { shutdown(): Promise<void> }[] = [];
function startTelemetry(options: TelemetryOptions) {
  const telemetry = startTelemetryUntracked(options);
  started.push(telemetry);
  return telemetry;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((telemetry) => telemetry.shutdown()));
});

/** Polls a condition (no fixed sleeps); fails after `timeoutMs`. */
async function waitFor(
  condition: () => boolean,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function value(v: OtlpAnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue;
}
function attributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value: v }) => [key, value(v)]),
  );
}
function spansOf(requests: Received[]) {
  return requests.flatMap((request) =>
    request.body.resourceSpans.flatMap((resourceSpans) =>
      resourceSpans.scopeSpans.flatMap((scopeSpans) =>
        scopeSpans.spans.map((span) => ({
          span,
          scope: scopeSpans.scope,
          resource: attributes(resourceSpans.resource.attributes),
        })),
      ),
    ),
  );
}

/** Whether an SDK logger provider (NodeSDK registers one) is the global one. */
function loggerProviderKind(): 'sdk' | 'none' {
  return 'shutdown' in logs.getLoggerProvider() ? 'sdk' : 'none';
}

/** Runs `fn` with these variables set in process.env, then puts process.env back. */
async function withProcessEnv(
  variables: Record<string, string>,
  fn: () => Promise<void>,
): Promise<void> {
  const saved = Object.keys(variables).map(
    (name) => [name, process.env[name]] as const,
  );
  Object.assign(process.env, variables);
  try {
    await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

// ---------------------------------------------------------------------------------------

describe('startTelemetry tracing against a real OTLP/HTTP receiver', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  it('exports a cycle with its steps, errors, counts and resource after shutdown()', async () => {
    const telemetry = startTelemetry({
      serviceName: 'tandem-recommender',
      serviceVersion: '1.2.3',
      attributes: { 'deployment.environment.name': 'test' },
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/`,
        POD_NAME: 'recommender-7d9f',
        POD_NAMESPACE: 'kube-system',
        NODE_NAME: 'node-1',
      },
    });
    expect(telemetry.traceExportUrl).toBe(`${receiver.endpoint}/v1/traces`);
    const { tracer } = telemetry;

    const failure = new Error('metrics.k8s.io unavailable');
    await inSpan(tracer, 'recommender.cycle', {}, async (cycle) => {
      const vpas = await inSpan(tracer, 'load_vpas', {}, async (step) => {
        await new Promise((resolve) => setImmediate(resolve));
        step.setAttribute('vpa.count', 2);
        return 2;
      });
      await expect(
        inSpan(
          tracer,
          'load_metrics',
          { 'metrics.source': 'metrics-server' },
          async () => {
            await Promise.resolve();
            throw failure;
          },
        ),
      ).rejects.toBe(failure);
      cycle.setAttribute('vpa.count', vpas);
      cycle.setAttribute('step.failures', 1);
    });

    // Spans are batched: nothing needs to have been sent yet. shutdown() flushes.
    await telemetry.shutdown();

    expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    for (const request of receiver.requests) {
      expect(request.contentType).toBe('application/json');
    }
    const spans = spansOf(receiver.requests);
    expect(spans.map(({ span }) => span.name).sort()).toEqual([
      'load_metrics',
      'load_vpas',
      'recommender.cycle',
    ]);
    const find = (name: string) => {
      const found = spans.find(({ span }) => span.name === name);
      if (!found) throw new Error(`no ${name}`);
      return found;
    };
    const cycle = find('recommender.cycle');
    const loadVpas = find('load_vpas');
    const loadMetrics = find('load_metrics');

    expect(cycle.span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(cycle.span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(cycle.span.parentSpanId ?? '').toBe('');
    for (const child of [loadVpas, loadMetrics]) {
      expect(child.span.traceId).toBe(cycle.span.traceId);
      expect(child.span.parentSpanId).toBe(cycle.span.spanId);
    }

    expect(attributes(cycle.span.attributes)).toEqual({
      'vpa.count': 2,
      'step.failures': 1,
    });
    expect(attributes(loadVpas.span.attributes)).toEqual({ 'vpa.count': 2 });
    expect(loadVpas.span.status?.code ?? 0).toBe(0);
    expect(cycle.span.status?.code ?? 0).toBe(0);

    expect(attributes(loadMetrics.span.attributes)).toEqual({
      'metrics.source': 'metrics-server',
    });
    expect(loadMetrics.span.status).toEqual({
      code: 2,
      message: 'metrics.k8s.io unavailable',
    });
    expect(loadMetrics.span.events).toHaveLength(1);
    const exception = loadMetrics.span.events?.[0];
    expect(exception?.name).toBe('exception');
    expect(attributes(exception?.attributes)).toMatchObject({
      'exception.type': 'Error',
      'exception.message': 'metrics.k8s.io unavailable',
    });
    expect(attributes(exception?.attributes)['exception.stacktrace']).toEqual(
      expect.stringContaining('metrics.k8s.io unavailable'),
    );

    for (const { resource, scope } of spans) {
      expect(resource).toMatchObject({
        'service.name': 'tandem-recommender',
        'service.version': '1.2.3',
        'k8s.pod.name': 'recommender-7d9f',
        'k8s.namespace.name': 'kube-system',
        'k8s.node.name': 'node-1',
        'deployment.environment.name': 'test',
        'telemetry.sdk.language': 'nodejs',
      });
      expect(scope).toMatchObject({
        name: 'tandem-recommender',
        version: '1.2.3',
      });
    }
  });

  it('honours OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as the full URL and omits unknown k8s attributes', async () => {
    const telemetry = startTelemetry({
      serviceName: 'tandem-updater',
      serviceVersion: '0.0.1',
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      },
    });
    inSpan(telemetry.tracer, 'updater.cycle', {}, () => undefined);
    await telemetry.shutdown();
    const spans = spansOf(receiver.requests);
    expect(spans.map(({ span }) => span.name)).toEqual(['updater.cycle']);
    const resource = spans[0]?.resource ?? {};
    expect(resource['service.name']).toBe('tandem-updater');
    expect(
      Object.keys(resource).filter((key) => key.startsWith('k8s.')),
    ).toEqual([]);
  });

  it('exports a full batch before shutdown, with OTEL_BSP_MAX_EXPORT_BATCH_SIZE honoured', async () => {
    const telemetry = startTelemetry({
      serviceName: 's',
      serviceVersion: '1',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
      },
    });
    inSpan(telemetry.tracer, 'first', {}, () => undefined);
    inSpan(telemetry.tracer, 'second', {}, () => undefined);
    // No shutdown yet: the batch of 2 is full, so it leaves now (default delay is 5 s).
    await waitFor(() => receiver.requests.length === 1);
    expect(spansOf(receiver.requests).map(({ span }) => span.name)).toEqual([
      'first',
      'second',
    ]);
    await telemetry.shutdown();
  });

  it.each(['collector:4318/v1/traces', 'not a url'])(
    'does not export to %j (not an http(s) URL), and logs why',
    async (endpoint) => {
      const lines: string[] = [];
      const telemetry = startTelemetry({
        serviceName: 's',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint },
        logDestination: { write: (line: string) => void lines.push(line) },
      });
      await telemetry.shutdown();
      expect(telemetry.traceExportUrl).toBeUndefined();
      expect(inSpan(telemetry.tracer, 'x', {}, () => 3)).toBe(3);
      expect(
        lines.map((line) => JSON.parse(line) as Record<string, unknown>),
      ).toEqual([
        expect.objectContaining({
          level: 'warn',
          url: endpoint,
          msg: 'OTLP traces endpoint is not an http(s) URL; traces are not exported',
        }),
      ]);
    },
  );

  it('sends nothing without an endpoint, and inSpan still runs the function', async () => {
    const telemetry = startTelemetry({
      serviceName: 'tandem-recommender',
      serviceVersion: '1.2.3',
      // Everything but the endpoint: the receiver is reachable, yet must get nothing.
      env: { POD_NAME: 'p', OTEL_EXPORTER_OTLP_HEADERS: 'x=y' },
    });
    expect(telemetry.traceExportUrl).toBeUndefined();
    const sync = inSpan(telemetry.tracer, 'recommender.cycle', {}, (span) => {
      expect(span.isRecording()).toBe(false);
      span.setAttribute('vpa.count', 1);
      return 'sync result';
    });
    expect(sync).toBe('sync result');
    const nested = await inSpan(
      telemetry.tracer,
      'recommender.cycle',
      {},
      async () => {
        await Promise.resolve();
        return inSpan(telemetry.tracer, 'load_vpas', {}, async () => 7);
      },
    );
    expect(nested).toBe(7);
    expect(() =>
      inSpan(telemetry.tracer, 'fails', {}, () => {
        throw new Error('still thrown');
      }),
    ).toThrow('still thrown');
    await telemetry.shutdown();
    expect(receiver.requests).toEqual([]);
  });

  it('sends nothing when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none, even with an endpoint', async () => {
    for (const off of [
      { OTEL_SDK_DISABLED: 'true' },
      { OTEL_TRACES_EXPORTER: 'none' },
    ]) {
      const telemetry = startTelemetry({
        serviceName: 's',
        serviceVersion: 'v',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...off },
      });
      expect(telemetry.traceExportUrl).toBeUndefined();
      expect(inSpan(telemetry.tracer, 'x', {}, () => 1)).toBe(1);
      // NodeSDK was not started: no global provider takes the library's spans either.
      trace.getTracer('library').startSpan('via-global').end();
      expect(loggerProviderKind()).toBe('none');
      await telemetry.shutdown();
    }
    expect(receiver.requests).toEqual([]);
  });

  describe('started through NodeSDK', () => {
    it('exports a resource with OTEL_RESOURCE_ATTRIBUTES and the process, host and os detectors, the app attributes winning', async () => {
      const telemetry = startTelemetry({
        serviceName: 'tandem-recommender',
        serviceVersion: '1.2.3',
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_RESOURCE_ATTRIBUTES:
            'k8s.cluster.name=prod-eu,deployment.environment.name=staging%2Ceu,' +
            'service.name=renamed,k8s.pod.name=from-otel-env',
          POD_NAME: 'recommender-7d9f',
        },
      });
      inSpan(telemetry.tracer, 'recommender.cycle', {}, () => undefined);
      await telemetry.shutdown();
      const spans = spansOf(receiver.requests);
      expect(spans.map(({ span }) => span.name)).toEqual(['recommender.cycle']);
      expect(spans[0]?.resource).toMatchObject({
        // OTEL_RESOURCE_ATTRIBUTES, from the env given to startTelemetry
        'k8s.cluster.name': 'prod-eu',
        'deployment.environment.name': 'staging,eu',
        // the app's own attributes win over it
        'service.name': 'tandem-recommender',
        'service.version': '1.2.3',
        'k8s.pod.name': 'recommender-7d9f',
        // NodeSDK's detectors
        'service.instance.id': expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
        ),
        'process.pid': process.pid,
        'process.runtime.name': 'nodejs',
        'process.runtime.version': process.versions.node,
        'host.name': hostname(),
        'host.arch': expect.any(String),
        'os.type': expect.any(String),
        'telemetry.sdk.language': 'nodejs',
      });
    });

    it("registers NodeSDK's tracer and logger providers, keeps this package's context manager and no propagator, and gives them back on shutdown", async () => {
      const telemetry = startTelemetry({
        serviceName: 's',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      });
      expect(loggerProviderKind()).toBe('sdk');
      expect(metrics.getMeterProvider().constructor.name).toBe(
        'NoopMeterProvider',
      );
      // The API has no public getter for it; the manager NodeSDK would install is
      // @opentelemetry/context-async-hooks' class of the same name.
      const manager = (
        context as unknown as { _getContextManager(): unknown }
      )._getContextManager();
      expect(manager).toBeInstanceOf(AsyncLocalStorageContextManager);
      const carrier: Record<string, string> = {};
      inSpan(telemetry.tracer, 'outgoing', {}, () =>
        propagation.inject(context.active(), carrier),
      );
      expect(carrier).toEqual({});

      await telemetry.shutdown();
      expect(loggerProviderKind()).toBe('none');
      trace.getTracer('library').startSpan('after-shutdown').end();
      expect(spansOf(receiver.requests).map(({ span }) => span.name)).toEqual([
        'outgoing',
      ]);
    });

    it('samples as OTEL_TRACES_SAMPLER says', async () => {
      const telemetry = startTelemetry({
        serviceName: 's',
        serviceVersion: '1',
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_TRACES_SAMPLER: 'always_off',
        },
      });
      expect(telemetry.traceExportUrl).toBe(`${receiver.endpoint}/v1/traces`);
      const recording = inSpan(telemetry.tracer, 'x', {}, (span) =>
        span.isRecording(),
      );
      expect(recording).toBe(false);
      await telemetry.shutdown();
      expect(receiver.requests).toEqual([]);
    });

    it('takes OTEL_* from the env given to startTelemetry, not from process.env, where they disagree', async () => {
      await withProcessEnv(
        {
          OTEL_RESOURCE_ATTRIBUTES: 'from.process.env=yes',
          OTEL_NODE_RESOURCE_DETECTORS: 'none',
          OTEL_TRACES_SAMPLER: 'always_off',
          OTEL_PROPAGATORS: 'tracecontext',
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
        },
        async () => {
          const telemetry = startTelemetry({
            serviceName: 's',
            serviceVersion: '1',
            env: {
              OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
              OTEL_RESOURCE_ATTRIBUTES: 'from.options.env=yes',
            },
          });
          const carrier: Record<string, string> = {};
          inSpan(telemetry.tracer, 'first', {}, () =>
            propagation.inject(context.active(), carrier),
          );
          trace.getTracer('library').startSpan('via-global').end();
          await telemetry.shutdown();
          expect(carrier).toEqual({});
          const spans = spansOf(receiver.requests);
          // One request: the batch size of 1 from process.env did not apply.
          expect(receiver.requests).toHaveLength(1);
          expect(spans.map(({ span }) => span.name)).toEqual([
            'first',
            'via-global',
          ]);
          expect(spans[0]?.resource['from.options.env']).toBe('yes');
          expect(spans[0]?.resource).not.toHaveProperty('from.process.env');
          expect(spans[0]?.resource['process.pid']).toBe(process.pid);
        },
      );
    });

    it('exports when only process.env has OTEL_SDK_DISABLED=true, and not when only process.env has an endpoint', async () => {
      await withProcessEnv({ OTEL_SDK_DISABLED: 'true' }, async () => {
        const telemetry = startTelemetry({
          serviceName: 's',
          serviceVersion: '1',
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
        });
        inSpan(telemetry.tracer, 'exported', {}, () => undefined);
        await telemetry.shutdown();
      });
      await withProcessEnv(
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
        async () => {
          const telemetry = startTelemetry({
            serviceName: 's',
            serviceVersion: '1',
            env: {},
          });
          expect(telemetry.traceExportUrl).toBeUndefined();
          inSpan(telemetry.tracer, 'not-exported', {}, () => undefined);
          await telemetry.shutdown();
        },
      );
      expect(spansOf(receiver.requests).map(({ span }) => span.name)).toEqual([
        'exported',
      ]);
    });
  });
});

describe('global tracer provider registration', () => {
  it('lets only the first live instance own the global provider, and releases it on shutdown', async () => {
    const first = await startReceiver();
    const second = await startReceiver();
    const third = await startReceiver();
    try {
      const a = startTelemetry({
        serviceName: 'a',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: first.endpoint },
      });
      const b = startTelemetry({
        serviceName: 'b',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: second.endpoint },
      });
      // Code that only knows @opentelemetry/api (a library) reaches the first instance.
      trace.getTracer('library').startSpan('via-global-1').end();
      inSpan(b.tracer, 'from-b', {}, () => undefined);
      await a.shutdown();
      await a.shutdown(); // idempotent

      // b kept its private provider and still exports; the global is free again.
      inSpan(b.tracer, 'from-b-after', {}, () => undefined);
      const c = startTelemetry({
        serviceName: 'c',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: third.endpoint },
      });
      trace.getTracer('library').startSpan('via-global-2').end();
      await Promise.all([b.shutdown(), c.shutdown()]);

      const names = (receiver: Receiver) =>
        spansOf(receiver.requests)
          .map(({ span }) => span.name)
          .sort();
      expect(names(first)).toEqual(['via-global-1']);
      expect(names(second)).toEqual(['from-b', 'from-b-after']);
      expect(names(third)).toEqual(['via-global-2']);
    } finally {
      await Promise.all([first.close(), second.close(), third.close()]);
    }
  });
});

describe('export problems are logged', () => {
  it('logs a rejected export through the app logger', async () => {
    const rejecting = await startReceiver(400);
    const { destination, lines } = capture();
    try {
      const telemetry = startTelemetry({
        serviceName: 'tandem-recommender',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: rejecting.endpoint },
        logDestination: destination,
      });
      inSpan(telemetry.tracer, 'recommender.cycle', {}, () => undefined);
      await telemetry.shutdown();
      expect(rejecting.requests).toHaveLength(1);
      expect(lines()).toContainEqual(
        expect.objectContaining({
          level: 'error',
          component: 'opentelemetry',
          service: 'tandem-recommender',
          msg: 'flushing spans on shutdown failed',
          err: expect.objectContaining({ message: 'Bad Request', code: 400 }),
        }),
      );
    } finally {
      await rejecting.close();
    }
  });

  it('logs a failed background export (full batch) through the OpenTelemetry diag logger', async () => {
    const rejecting = await startReceiver(400);
    const { destination, lines } = capture();
    try {
      const telemetry = startTelemetry({
        serviceName: 'tandem-recommender',
        serviceVersion: '1',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: rejecting.endpoint },
        logDestination: destination,
      });
      // A full batch (512 spans, the default maxExportBatchSize) is exported at once,
      // without waiting for the 5 s schedule or for shutdown().
      for (let i = 0; i < 512; i++) {
        inSpan(telemetry.tracer, 'recommender.cycle', {}, () => undefined);
      }
      const diagError = () =>
        lines().find(
          (line) =>
            line['component'] === 'opentelemetry' &&
            line['level'] === 'error' &&
            line['msg'] !== 'flushing spans on shutdown failed',
        );
      await waitFor(() => diagError() !== undefined);
      expect(rejecting.requests.length).toBeGreaterThanOrEqual(1);
      expect(diagError()).toMatchObject({ service: 'tandem-recommender' });
      await telemetry.shutdown();
    } finally {
      await rejecting.close();
    }
  });

  it('warns that only http/json is exported when another protocol is asked for', async () => {
    const receiver = await startReceiver();
    const { destination, lines } = capture();
    try {
      const telemetry = startTelemetry({
        serviceName: 's',
        serviceVersion: '1',
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        },
        logDestination: destination,
      });
      inSpan(telemetry.tracer, 'x', {}, () => undefined);
      await telemetry.shutdown();
      expect(lines()).toContainEqual(
        expect.objectContaining({ level: 'warn', protocol: 'http/protobuf' }),
      );
      expect(receiver.requests.map((request) => request.contentType)).toEqual([
        'application/json',
      ]);
    } finally {
      await receiver.close();
    }
  });
});
