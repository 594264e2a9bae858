import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { Request, RequestHandler } from 'express';

/**
 * Middleware: one OpenTelemetry SERVER span per request, made the active span for the
 * rest of the chain (`context.with`), so spans the handlers start are its children. The
 * parent is taken from the request headers (`traceparent`) when a propagator is
 * registered.
 *
 * Name: `spanName(req)` when given (called when the request arrives), otherwise
 * `${method} ${path}`, renamed to `${method} ${route}` at the end when an express
 * route matched (route templates keep the names few; paths can be many).
 *
 * Attributes: `http.request.method`, `url.path`, `http.response.status_code`, and
 * `http.route` when a route matched. Status ERROR on 5xx, or when the connection closes
 * before the response is complete. Ends on the response's 'finish' or 'close'.
 *
 * The span is on `res.locals.span` so handlers can add attributes
 * (`res.locals.span.setAttribute('vpa.name', name)`).
 */
export function requestSpans(
  tracer: Tracer,
  spanName?: (req: Request) => string,
): RequestHandler {
  return (request, response, next) => {
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      spanName ? spanName(request) : `${request.method} ${request.path}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.path,
        },
      },
      parent,
    );
    response.locals['span'] = span;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const route = routeOf(request);
      if (route !== undefined) {
        span.setAttribute('http.route', route);
        if (!spanName) span.updateName(`${request.method} ${route}`);
      }
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
    context.with(trace.setSpan(parent, span), next);
  };
}

/** The matched route template, with the mount path of its router; undefined if none. */
function routeOf(request: Request): string | undefined {
  const route: unknown = request.route;
  const path =
    typeof route === 'object' && route !== null
      ? (route as { path?: unknown }).path
      : undefined;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : undefined;
}
