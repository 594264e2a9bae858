import {
  context,
  isSpanContextValid,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * Runs `fn` inside a new span that is active for the duration of the call (so spans
 * started inside it, also after `await`, become its children), and ends the span when
 * `fn` returns or its promise settles.
 *
 * If `fn` throws or rejects, the exception is recorded on the span as an `exception`
 * event, the span status is set to ERROR with the error's message, and the error is
 * rethrown unchanged. On success the status is left UNSET (the OpenTelemetry default).
 *
 * `fn` receives the span, so the caller can add attributes known only after the work
 * (`span.setAttribute('vpa.count', n)`).
 *
 * @example
 *   await inSpan(tracer, 'recommender.cycle', {}, async (cycle) => {
 *     const vpas = await inSpan(tracer, 'load_vpas', {}, () => loadVpas());
 *     cycle.setAttribute('vpa.count', vpas.length);
 *   });
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T>;
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => T,
): T;
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => T | Promise<T>,
): T | Promise<T> {
  // What `tracer.startActiveSpan` does (the SDK's `Tracer.startActiveSpan`), in two steps.
  const parent = context.active();
  const span = tracer.startSpan(name, { attributes }, parent);
  // Without an SDK (no exporter configured) and no trace to join, the span is the no-op
  // tracer's invalid one, and so is every span started inside it, active or not: making
  // it active would only build a context (and run it through AsyncLocalStorage) for each
  // span of every cycle, a tenth of the updater's first cycle.
  if (
    !isSpanContextValid(span.spanContext()) &&
    trace.getSpan(parent) === undefined
  )
    return runInSpan(span, fn);
  return context.with(trace.setSpan(parent, span), () => runInSpan(span, fn));
}

/** Calls `fn`, ending the span when it returns or settles and failing it when it throws. */
function runInSpan<T>(
  span: Span,
  fn: (span: Span) => T | Promise<T>,
): T | Promise<T> {
  let result: T | Promise<T>;
  try {
    result = fn(span);
  } catch (error) {
    failSpan(span, error);
    span.end();
    throw error;
  }
  if (isPromiseLike(result)) {
    return Promise.resolve(result).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failSpan(span, error);
        span.end();
        throw error;
      },
    );
  }
  span.end();
  return result;
}

function failSpan(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    const message = String(error);
    span.recordException(message);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
