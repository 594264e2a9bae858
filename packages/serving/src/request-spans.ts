import { context, type Tracer } from '@opentelemetry/api';
import type { Request, RequestHandler } from 'express';
import { startServerSpan } from './server-span.js';

/**
 * Middleware: one OpenTelemetry SERVER span per request (`startServerSpan`), made the
 * active span for the rest of the chain (`context.with`), so spans the handlers start are
 * its children.
 *
 * Name: `spanName(req)` when given (called when the request arrives), otherwise
 * `${method} ${path}`, renamed to `${method} ${route}` at the end when an express
 * route matched (route templates keep the names few; paths can be many); `http.route`
 * then holds the route.
 *
 * The span is on `res.locals.span` so handlers can add attributes
 * (`res.locals.span.setAttribute('vpa.name', name)`).
 */
export function requestSpans(
  tracer: Tracer,
  spanName?: (req: Request) => string,
): RequestHandler {
  return (request, response, next) => {
    const { span, active } = startServerSpan(
      tracer,
      {
        name: spanName
          ? spanName(request)
          : `${request.method} ${request.path}`,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      response,
      (ending) => {
        const route = routeOf(request);
        if (route === undefined) return;
        ending.setAttribute('http.route', route);
        if (!spanName) ending.updateName(`${request.method} ${route}`);
      },
    );
    response.locals['span'] = span;
    context.with(active, next);
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
