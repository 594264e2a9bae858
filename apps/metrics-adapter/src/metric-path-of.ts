import { parseMetricPath, type MetricRequest } from '@tandem/custom-metrics';

let lastPath: string | undefined;
let lastParsed: MetricRequest = { kind: 'not-found' };

/**
 * `parseMetricPath`, remembering the last path: a request's path is read by its span's
 * name, its authorization attributes, the pass-through and the metric route in turn, and
 * the HPA asks the same few paths again and again. The answer for a path never changes.
 */
export function metricPathOf(path: string): MetricRequest {
  if (path !== lastPath) {
    lastParsed = parseMetricPath(path);
    lastPath = path;
  }
  return lastParsed;
}
