/** A Prometheus HTTP API answer that is an error, or not what the query should return. */
export class PrometheusResponseError extends Error {
  override name = 'PrometheusResponseError';
}

/** One series of a matrix: its labels and its points in the order Prometheus sent them. */
export interface PrometheusSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Values may be NaN or ±Infinity (Prometheus sends "NaN", "+Inf", "-Inf"). */
  readonly points: readonly {
    readonly timeMs: number;
    readonly value: number;
  }[];
}

const EXCERPT_LENGTH = 200;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_LENGTH
    ? `${flat.slice(0, EXCERPT_LENGTH)}…`
    : flat || '(empty body)';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `data` of an API answer (`{status: "success", data}`). Prometheus reports failures as
 * `{status: "error", errorType, error}` with a 4xx/5xx code; a proxy in front of it may
 * answer anything, so non-JSON bodies are reported with the HTTP status and an excerpt.
 */
export function apiResponseData(httpStatus: number, body: string): unknown {
  const ok = httpStatus >= 200 && httpStatus < 300;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new PrometheusResponseError(
      `HTTP ${httpStatus}, ${ok ? 'body is not JSON' : 'not a Prometheus API answer'}: ${excerpt(body)}`,
    );
  }
  if (isRecord(parsed) && parsed['status'] === 'error') {
    const type = String(parsed['errorType'] ?? 'unknown');
    throw new PrometheusResponseError(
      `HTTP ${httpStatus}, ${type}: ${String(parsed['error'] ?? '(no message)')}`,
    );
  }
  if (!ok)
    throw new PrometheusResponseError(`HTTP ${httpStatus}: ${excerpt(body)}`);
  if (
    !isRecord(parsed) ||
    parsed['status'] !== 'success' ||
    !('data' in parsed)
  )
    throw new PrometheusResponseError(
      `answer has no status "success" with data: ${excerpt(body)}`,
    );
  return parsed['data'];
}

/** Prometheus encodes sample values as strings so that NaN and infinities survive JSON. */
function sampleValue(text: unknown): number | undefined {
  if (text === 'NaN') return Number.NaN;
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function seriesLabels(metric: unknown, where: string): Record<string, string> {
  if (!isRecord(metric))
    throw new PrometheusResponseError(`${where}: "metric" is not an object`);
  const labels: Record<string, string> = {};
  for (const [name, value] of Object.entries(metric)) {
    if (typeof value !== 'string')
      throw new PrometheusResponseError(
        `${where}: label ${name} is not a string`,
      );
    labels[name] = value;
  }
  return labels;
}

function seriesPoints(
  values: unknown,
  where: string,
): PrometheusSeries['points'] {
  if (!Array.isArray(values))
    throw new PrometheusResponseError(`${where}: "values" is not an array`);
  return values.map((point: unknown, index) => {
    const [time, text] = Array.isArray(point) ? point : [];
    const value = sampleValue(text);
    if (
      !Array.isArray(point) ||
      point.length !== 2 ||
      typeof time !== 'number' ||
      !Number.isFinite(time) ||
      value === undefined
    )
      throw new PrometheusResponseError(
        `${where}: point ${index} is not [<unix seconds>, "<value>"]: ${excerpt(JSON.stringify(point) ?? String(point))}`,
      );
    return { timeMs: Math.round(time * 1000), value };
  });
}

/** The series of a `matrix` result (what range queries and range-selector instant queries return). */
export function matrixSeries(data: unknown): PrometheusSeries[] {
  if (!isRecord(data) || !Array.isArray(data['result']))
    throw new PrometheusResponseError('data has no "result" array');
  if (data['resultType'] !== 'matrix')
    throw new PrometheusResponseError(
      `expected a matrix result, got ${JSON.stringify(data['resultType'])}${data['resultType'] === 'vector' ? ' (an instant query needs a range selector such as [1h])' : ''}`,
    );
  return data['result'].map((series: unknown, index) => {
    const where = `series ${index}`;
    if (!isRecord(series))
      throw new PrometheusResponseError(`${where} is not an object`);
    return {
      labels: seriesLabels(series['metric'], where),
      points: seriesPoints(series['values'], where),
    };
  });
}
