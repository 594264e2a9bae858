import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

/** An OTLP attribute value, as the OTLP/JSON encoding spells it. */
export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string | number }
  | { doubleValue: number }
  | { arrayValue: { values?: OtlpAnyValue[] } }
  | { kvlistValue: { values?: OtlpKeyValue[] } }
  | Record<string, never>;

export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

/** One received span, flattened: its own fields plus its resource's and scope's. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty string (or absent in the wire format) for a root span. */
  parentSpanId: string;
  name: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  /** The span's attributes, decoded to plain JS values. */
  attributes: Record<string, unknown>;
  /** The resource's attributes (service.name, k8s.pod.name, ...), decoded. */
  resource: Record<string, unknown>;
  scope?: string;
  status?: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** The base URL to put in OTEL_EXPORTER_OTLP_ENDPOINT, e.g. `http://127.0.0.1:41234`. */
  endpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** How many export requests arrived (including rejected ones). */
  requestCount(): number;
  /** Request problems (bad JSON, wrong path), for failure messages. */
  errors(): string[];
  close(): Promise<void>;
}

interface OtlpSpanJson {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
}

interface ExportTraceServiceRequestJson {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpanJson[] }[];
  }[];
}

function decodeValue(value: OtlpAnyValue | undefined): unknown {
  if (value === undefined) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value)
    return (value.arrayValue.values ?? []).map(decodeValue);
  if ('kvlistValue' in value) return decodeAttributes(value.kvlistValue.values);
  return undefined;
}

/** OTLP key/value lists → a plain object. */
export function decodeAttributes(
  attributes: OtlpKeyValue[] | undefined,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? [])
    result[key] = decodeValue(value);
  return result;
}

/**
 * OTLP/JSON ids are hex strings; a receiver must also accept base64 (the protobuf JSON
 * mapping of `bytes`), which some exporters send. Normalise to lower-case hex.
 */
function normaliseId(id: string | undefined, bytes: number): string {
  if (id === undefined || id === '') return '';
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(id))
    return id.toLowerCase();
  const decoded = Buffer.from(id, 'base64');
  return decoded.length === bytes ? decoded.toString('hex') : id;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = (request.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  return body;
}

/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1 (random port): `POST /v1/traces` with a JSON
 * ExportTraceServiceRequest is answered `200 {}` (a full success), and its spans are kept.
 * Anything else gets 404 (wrong path) or 400 (not JSON), and is noted in `errors()`.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const errors: string[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    const answer = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body);
    };
    const path = new URL(request.url ?? '/', 'http://receiver').pathname;
    if (request.method !== 'POST' || path !== '/v1/traces') {
      errors.push(`unexpected ${request.method} ${request.url}`);
      answer(404, '{}');
      return;
    }
    requests += 1;
    readBody(request)
      .then((body) => {
        const contentType = request.headers['content-type'] ?? '';
        if (!contentType.includes('json')) {
          errors.push(`POST /v1/traces with content-type '${contentType}'`);
          answer(415, '{}');
          return;
        }
        const payload = JSON.parse(
          body.toString('utf8'),
        ) as ExportTraceServiceRequestJson;
        for (const resourceSpans of payload.resourceSpans ?? []) {
          const resource = decodeAttributes(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans ?? [])
            for (const span of scopeSpans.spans ?? [])
              spans.push({
                traceId: normaliseId(span.traceId, 16),
                spanId: normaliseId(span.spanId, 8),
                parentSpanId: normaliseId(span.parentSpanId, 8),
                name: span.name ?? '',
                kind: span.kind,
                startTimeUnixNano: span.startTimeUnixNano,
                endTimeUnixNano: span.endTimeUnixNano,
                attributes: decodeAttributes(span.attributes),
                resource,
                scope: scopeSpans.scope?.name,
                status: span.status,
              });
        }
        answer(200, '{}');
      })
      .catch((error: unknown) => {
        errors.push(`bad POST /v1/traces: ${(error as Error).message}`);
        answer(400, '{}');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    requestCount: () => requests,
    errors: () => [...errors],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
