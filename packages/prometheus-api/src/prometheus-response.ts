/** A Prometheus HTTP API answer that is an error, or not what the query should return. */
export class PrometheusResponseError extends Error {
  override name = 'PrometheusResponseError';
}

/** One sample of an instant vector: its labels and its value at the query's time. */
export interface PrometheusSample {
  readonly labels: Readonly<Record<string, string>>;
  /** May be NaN or ±Infinity, as in a series. */
  readonly value: number;
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

function jsonExcerpt(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value));
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

/** One `[<unix seconds>, "<value>"]` pair, or undefined when it is not one. */
function timedValue(
  point: unknown,
): { timeMs: number; value: number } | undefined {
  if (!Array.isArray(point) || point.length !== 2) return undefined;
  const [time, text] = point as [unknown, unknown];
  const value = sampleValue(text);
  if (typeof time !== 'number' || !Number.isFinite(time) || value === undefined)
    return undefined;
  return { timeMs: Math.round(time * 1000), value };
}

const POINT_SHAPE = '[<unix seconds>, "<value>"]';

function seriesPoints(
  values: unknown,
  where: string,
): PrometheusSeries['points'] {
  if (!Array.isArray(values))
    throw new PrometheusResponseError(`${where}: "values" is not an array`);
  return values.map((point: unknown, index) => {
    const read = timedValue(point);
    if (read === undefined)
      throw new PrometheusResponseError(
        `${where}: point ${index} is not ${POINT_SHAPE}: ${jsonExcerpt(point)}`,
      );
    return read;
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

/** Why a vector was expected, for result types that a query mistake typically produces. */
const VECTOR_HINTS: ReadonlyMap<unknown, string> = new Map([
  [
    'matrix',
    ' (a range selector such as [5m] needs a function such as rate() to give an instant value)',
  ],
  ['scalar', ' (the query yields one number, not labelled series)'],
]);

/** The samples of a `vector` result (what instant queries of series return). */
export function vectorSamples(data: unknown): PrometheusSample[] {
  if (!isRecord(data) || !Array.isArray(data['result']))
    throw new PrometheusResponseError('data has no "result" array');
  const resultType = data['resultType'];
  if (resultType !== 'vector')
    throw new PrometheusResponseError(
      `expected a vector result, got ${JSON.stringify(resultType)}${VECTOR_HINTS.get(resultType) ?? ''}`,
    );
  return data['result'].map((sample: unknown, index) => {
    const where = `sample ${index}`;
    if (!isRecord(sample))
      throw new PrometheusResponseError(`${where} is not an object`);
    const labels = seriesLabels(sample['metric'], where);
    if (!('value' in sample) && 'histogram' in sample)
      throw new PrometheusResponseError(
        `${where}: a native histogram, not a float value`,
      );
    const read = timedValue(sample['value']);
    if (read === undefined)
      throw new PrometheusResponseError(
        `${where}: "value" is not ${POINT_SHAPE}: ${jsonExcerpt(sample['value'])}`,
      );
    return { labels, value: read.value };
  });
}
