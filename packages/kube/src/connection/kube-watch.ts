import type { WatchLike } from '../list-watch-cache.js';
import type { KubeConnection } from './kube-connection.js';
import { kubeRequestError, openKubeRequest } from './kube-request.js';

/**
 * Watches over a KubeConnection: a streaming GET with `watch=true`, one JSON event a line.
 * `done` is called once: with nothing when the server ends the stream (its
 * `timeoutSeconds`), with an error carrying the HTTP status when the watch is refused, or
 * with the failure when the connection breaks or a line is not JSON. After `abort()`
 * nothing more is reported.
 */
export function kubeWatch(connection: KubeConnection): WatchLike {
  return {
    async watch(path, queryParams, callback, done) {
      const query = new URLSearchParams({ watch: 'true' });
      for (const [name, value] of Object.entries(queryParams))
        if (value !== undefined) query.set(name, String(value));
      const request = { method: 'GET', path: `${path}?${query}`, timeoutMs: 0 };
      const { response, abort } = await openKubeRequest(connection, request);
      let finished = false;
      const finish = (error: unknown) => {
        if (finished) return;
        finished = true;
        done(error);
      };
      let pending = '';
      response.setEncoding('utf8');
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        response.on('data', (chunk: string) => (pending += chunk));
        response.on('end', () =>
          finish(kubeRequestError(request, status, pending)),
        );
      } else {
        response.on('data', (chunk: string) => {
          pending += chunk;
          let newline = pending.indexOf('\n');
          while (newline >= 0 && !finished) {
            const line = pending.slice(0, newline);
            pending = pending.slice(newline + 1);
            newline = pending.indexOf('\n');
            if (line.trim() !== '' && !deliver(line, callback)) {
              finish(new Error(`watch ${path}: an event is not JSON`));
              abort();
            }
          }
        });
        // The API server ends every event with a newline; a last line without one is
        // still an event.
        response.on('end', () => {
          if (pending.trim() !== '' && !deliver(pending, callback))
            finish(new Error(`watch ${path}: an event is not JSON`));
          finish(null);
        });
      }
      response.on('error', finish);
      response.on('close', () =>
        finish(new Error(`watch ${path}: the connection closed`)),
      );
      return {
        abort() {
          finished = true;
          abort();
        },
      };
    },
  };
}

/** Hands one event line to `callback`; false when it is not a JSON event. */
function deliver(
  line: string,
  callback: Parameters<WatchLike['watch']>[2],
): boolean {
  let event: { type?: unknown; object?: unknown } | null;
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return false;
  }
  if (typeof event !== 'object' || event === null) return false;
  if (typeof event.type !== 'string') return false;
  callback(event.type, event.object, event);
  return true;
}
