import {
  SpanStatusCode,
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
  return tracer.startActiveSpan(name, { attributes }, (span) => {
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
  });
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
