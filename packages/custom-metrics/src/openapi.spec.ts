import { describedPod, metricValueList } from './metric-value-list.js';
import {
  openApiHash,
  openApiV2,
  openApiV3Discovery,
  openApiV3Group,
} from './openapi.js';

type Json = Record<string, unknown>;

/** Every `$ref` string anywhere in a document. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refs(inner),
  );
}

interface Operation {
  operationId: string;
  parameters: { name: string; in: string; required: boolean }[];
  responses: Record<string, unknown>;
}

function operations(document: Json): [string, Operation][] {
  return Object.entries(
    document['paths'] as Record<string, { get: Operation }>,
  ).map(([path, item]) => [path, item.get]);
}

/** Swagger and OpenAPI both require every `{param}` of a path to be declared, required. */
function expectPathParametersDeclared(document: Json): void {
  for (const [path, operation] of operations(document)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const declared = operation.parameters
      .filter((p) => p.in === 'path' && p.required)
      .map((p) => p.name);
    expect(declared.sort()).toEqual(templated.sort());
    expect(Object.keys(operation.responses)).toContain('200');
  }
}

/** The JSON-pointer target of a local `$ref`. */
function resolve(document: Json, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) =>
        typeof node === 'object' && node !== null
          ? (node as Json)[key]
          : undefined,
      document,
    );
}

const ITEM = {
  describedObject: describedPod('shop', 'web-1'),
  metric: 'cpu_usage' as const,
  selector: undefined,
  windowSeconds: 60,
  value: 1,
};

describe('openApiV2', () => {
  const document = openApiV2() as Json;

  it('is a Swagger 2.0 document with the fields the aggregator requires', () => {
    expect(document).toMatchObject({
      swagger: '2.0',
      info: { title: expect.any(String), version: 'v1beta2' },
      paths: expect.any(Object),
      definitions: expect.any(Object),
    });
  });

  it('describes the pods metric route of both versions', () => {
    expect(Object.keys(document['paths'] as Json).sort()).toEqual([
      '/apis/custom.metrics.k8s.io/v1beta1/namespaces/{namespace}/pods/{name}/{metric}',
      '/apis/custom.metrics.k8s.io/v1beta2/namespaces/{namespace}/pods/{name}/{metric}',
    ]);
    expectPathParametersDeclared(document);
    const ids = operations(document).map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('resolves every $ref to a definition', () => {
    const all = refs(document);
    expect(all.length).toBeGreaterThan(0);
    for (const ref of all) {
      expect(ref).toMatch(/^#\/definitions\//);
      expect(resolve(document, ref)).toBeDefined();
    }
  });

  it('defines MetricValueList of both versions with their kind', () => {
    const definitions = document['definitions'] as Json;
    for (const version of ['v1beta1', 'v1beta2']) {
      expect(
        definitions[
          `io.k8s.metrics.pkg.apis.custom_metrics.${version}.MetricValueList`
        ],
      ).toMatchObject({
        'x-kubernetes-group-version-kind': [
          { group: 'custom.metrics.k8s.io', kind: 'MetricValueList', version },
        ],
      });
    }
  });

  it.each(['v1beta1', 'v1beta2'] as const)(
    'describes every field metricValueList writes in %s',
    (version) => {
      const definitions = document['definitions'] as Record<
        string,
        { properties: Json }
      >;
      const prefix = `io.k8s.metrics.pkg.apis.custom_metrics.${version}`;
      const list = JSON.parse(
        metricValueList(version, '2026-01-01T12:00:00Z', [ITEM]).toString(),
      ) as Json;
      const [item] = list['items'] as Json[];
      expect(Object.keys(list).sort()).toEqual(
        Object.keys(
          definitions[`${prefix}.MetricValueList`]?.properties ?? {},
        ).sort(),
      );
      expect(Object.keys(item ?? {}).sort()).toEqual(
        Object.keys(
          definitions[`${prefix}.MetricValue`]?.properties ?? {},
        ).sort(),
      );
    },
  );
});

describe('openApiV3Group', () => {
  it.each(['v1beta1', 'v1beta2'] as const)(
    'is an OpenAPI 3.0 document for %s alone',
    (version) => {
      const document = openApiV3Group(version) as Json;
      expect(document).toMatchObject({
        openapi: '3.0.0',
        info: { title: expect.any(String), version },
      });
      expect(Object.keys(document['paths'] as Json)).toEqual([
        `/apis/custom.metrics.k8s.io/${version}/namespaces/{namespace}/pods/{name}/{metric}`,
      ]);
      expectPathParametersDeclared(document);
      for (const ref of refs(document)) {
        expect(ref).toMatch(
          new RegExp(
            `^#/components/schemas/io\\.k8s\\.metrics\\.pkg\\.apis\\.custom_metrics\\.${version}\\.`,
          ),
        );
        expect(resolve(document, ref)).toBeDefined();
      }
    },
  );
});

describe('openApiV3Discovery', () => {
  it('points at each version document with its hash', () => {
    const document = openApiV3Discovery();
    expect(document).toEqual({
      paths: {
        'apis/custom.metrics.k8s.io/v1beta2': {
          serverRelativeURL: `/openapi/v3/apis/custom.metrics.k8s.io/v1beta2?hash=${openApiHash(openApiV3Group('v1beta2'))}`,
        },
        'apis/custom.metrics.k8s.io/v1beta1': {
          serverRelativeURL: `/openapi/v3/apis/custom.metrics.k8s.io/v1beta1?hash=${openApiHash(openApiV3Group('v1beta1'))}`,
        },
      },
    });
  });

  it('hashes as kube-openapi does: SHA-512 in upper-case hex, stable', () => {
    const hash = openApiHash(openApiV3Group('v1beta2'));
    expect(hash).toMatch(/^[0-9A-F]{128}$/);
    expect(openApiHash(openApiV3Group('v1beta2'))).toBe(hash);
    expect(openApiHash(openApiV3Group('v1beta1'))).not.toBe(hash);
  });
});
