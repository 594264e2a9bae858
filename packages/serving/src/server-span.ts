import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/** What a request's SERVER span is started from. */
export interface ServerRequest {
  name: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/**
 * The SERVER span of one request, its parent taken from the request headers
 * (`traceparent`) when a propagator is registered, with `http.request.method` and
 * `url.path`; and the context to run the handler in, so that spans the handler starts are
 * its children. It ends on the response's 'finish' or 'close', with
 * `http.response.status_code`, status ERROR on a 5xx or when the connection closed before
 * the response was complete; `beforeEnd` may add what is only known then (the route).
 */
export function startServerSpan(
  tracer: Tracer,
  request: ServerRequest,
  response: ServerResponse,
  beforeEnd?: (span: Span) => void,
): { span: Span; active: Context } {
  const parent = propagation.extract(context.active(), request.headers);
  const span = tracer.startSpan(
    request.name,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        'url.path': request.path,
      },
    },
    parent,
  );
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    beforeEnd?.(span);
    if (response.headersSent) {
      span.setAttribute('http.response.status_code', response.statusCode);
    }
    if (response.headersSent && response.statusCode >= 500) {
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (!response.writableFinished) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: 'connection closed before the response was complete',
      });
    }
    span.end();
  };
  response.once('finish', end);
  response.once('close', end);
  return { span, active: trace.setSpan(parent, span) };
}
