import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { AsyncLocalStorageContextManager } from './context-manager.js';
import { inSpan } from './in-span.js';

// Real SDK objects: an in-memory exporter behind a simple (synchronous) processor.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
const tracer = provider.getTracer('in-span.spec');

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

const finished = () => exporter.getFinishedSpans();
const byName = (name: string) => {
  const span = finished().find((candidate) => candidate.name === name);
  if (!span) throw new Error(`no span ${name}`);
  return span;
};

describe('inSpan', () => {
  it('returns a sync value synchronously and ends the span', () => {
    const value = inSpan(tracer, 'sync', { 'step.kind': 'pure' }, (span) => {
      expect(trace.getActiveSpan()).toBe(span);
      return 42;
    });
    expect(value).toBe(42);
    const span = byName('sync');
    expect(span.attributes).toEqual({ 'step.kind': 'pure' });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('nests spans across await and lets callers add attributes after the work', async () => {
    const result = await inSpan(tracer, 'cycle', {}, async (cycle) => {
      const vpas = await inSpan(tracer, 'load_vpas', {}, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return ['a', 'b', 'c'];
      });
      await Promise.resolve();
      inSpan(tracer, 'update_vpas', {}, () => undefined);
      cycle.setAttribute('vpa.count', vpas.length);
      return vpas.length;
    });
    expect(result).toBe(3);
    const cycle = byName('cycle');
    expect(cycle.attributes).toEqual({ 'vpa.count': 3 });
    expect(cycle.parentSpanContext).toBeUndefined();
    for (const child of ['load_vpas', 'update_vpas']) {
      const span = byName(child);
      expect(span.spanContext().traceId).toBe(cycle.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(cycle.spanContext().spanId);
    }
    expect(finished().map((span) => span.name)).toEqual([
      'load_vpas',
      'update_vpas',
      'cycle',
    ]);
  });

  it('records a sync throw, sets ERROR status, ends the span and rethrows', () => {
    const error = new TypeError('bad quantity');
    expect(() =>
      inSpan(tracer, 'throws', {}, () => {
        throw error;
      }),
    ).toThrow(error);
    const span = byName('throws');
    expect(span.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'bad quantity',
    });
    expect(
      span.events.map((event) => [
        event.name,
        event.attributes?.['exception.type'],
        event.attributes?.['exception.message'],
      ]),
    ).toEqual([['exception', 'TypeError', 'bad quantity']]);
    expect(span.ended).toBe(true);
  });

  it('records an async rejection and rejects with the same error', async () => {
    const error = new Error('apiserver 503');
    await expect(
      inSpan(tracer, 'rejects', {}, async () => {
        await Promise.resolve();
        throw error;
      }),
    ).rejects.toBe(error);
    const span = byName('rejects');
    expect(span.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'apiserver 503',
    });
    expect(span.events[0]?.name).toBe('exception');
  });

  it('handles thrown non-Error values', () => {
    expect(() =>
      inSpan(tracer, 'throws-string', {}, () => {
        throw 'plain string';
      }),
    ).toThrow('plain string');
    const span = byName('throws-string');
    expect(span.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'plain string',
    });
    expect(span.events[0]?.attributes?.['exception.message']).toBe(
      'plain string',
    );
  });

  it('with the no-op tracer (no SDK) makes no context, and joins a trace it is given', async () => {
    const noop = trace.getTracer('no-sdk');
    const value = await inSpan(noop, 'cycle', {}, async () => {
      await Promise.resolve();
      return inSpan(noop, 'step', {}, (span) => {
        expect(span.isRecording()).toBe(false);
        expect(trace.getActiveSpan()).toBeUndefined();
        return 7;
      });
    });
    expect(value).toBe(7);
    const incoming = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    });
    context.with(trace.setSpan(context.active(), incoming), () =>
      inSpan(noop, 'joined', {}, (span) => {
        expect(trace.getActiveSpan()).toBe(span);
        expect(span.spanContext().traceId).toBe(incoming.spanContext().traceId);
      }),
    );
    expect(finished()).toEqual([]);
  });
});
