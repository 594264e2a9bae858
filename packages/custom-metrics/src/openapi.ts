import { createHash } from 'node:crypto';
import {
  CUSTOM_METRICS_GROUP,
  CUSTOM_METRICS_VERSIONS,
  groupVersion,
  type CustomMetricsVersion,
} from './api-group.js';
import {
  metricValueListSchemas,
  schemaName,
  type Schema,
} from './openapi-schemas.js';

/**
 * OpenAPI documents (reference §2.8). The HPA needs none, but kube-apiserver's OpenAPI
 * aggregation downloads them from every service-backed APIService and logs and requeues
 * a 404 or an invalid document forever. So: small, valid, and describing what we serve —
 * the pods metric route and MetricValueList of each version.
 */

const TITLE = 'Tandem custom metrics';

/** `/openapi/v2`: Swagger 2.0 for both versions. */
export function openApiV2(): object {
  const paths: Record<string, object> = {};
  const definitions: Record<string, Schema> = {};
  for (const version of CUSTOM_METRICS_VERSIONS) {
    paths[podMetricPath(version)] = {
      get: {
        ...operation(version),
        produces: ['application/json'],
        schemes: ['https'],
        parameters: parameters().map(({ name, in: where, description }) => ({
          name,
          in: where,
          description,
          required: where === 'path',
          type: 'string',
        })),
        responses: {
          '200': {
            description: 'OK',
            schema: { $ref: `#/definitions/${listName(version)}` },
          },
          '401': { description: 'Unauthorized' },
        },
      },
    };
    Object.assign(
      definitions,
      metricValueListSchemas(version, '#/definitions/'),
    );
  }
  return {
    swagger: '2.0',
    info: { title: TITLE, version: 'v1beta2' },
    paths,
    definitions,
  };
}

/** `/openapi/v3`: where each group-version's document is, with its hash for caching. */
export function openApiV3Discovery(): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const version of CUSTOM_METRICS_VERSIONS) {
    const key = `apis/${groupVersion(version)}`;
    const hash = openApiHash(openApiV3Group(version));
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** `/openapi/v3/apis/custom.metrics.k8s.io/<v>`: OpenAPI 3.0 for one version. */
export function openApiV3Group(version: CustomMetricsVersion): object {
  return {
    openapi: '3.0.0',
    info: { title: TITLE, version },
    paths: {
      [podMetricPath(version)]: {
        get: {
          ...operation(version),
          parameters: parameters().map(({ name, in: where, description }) => ({
            name,
            in: where,
            description,
            required: where === 'path',
            schema: { type: 'string' },
          })),
          responses: {
            '200': {
              description: 'OK',
              content: {
                'application/json': {
                  schema: {
                    $ref: `#/components/schemas/${listName(version)}`,
                  },
                },
              },
            },
            '401': { description: 'Unauthorized' },
          },
        },
      },
    },
    components: {
      schemas: metricValueListSchemas(version, '#/components/schemas/'),
    },
  };
}

/**
 * The hash kube-openapi puts in `serverRelativeURL` (SHA-512, upper-case hex) of the JSON
 * text of `document`; also a fit ETag for serving it, as long as the same text is sent.
 */
export function openApiHash(document: object): string {
  return createHash('sha512')
    .update(JSON.stringify(document))
    .digest('hex')
    .toUpperCase();
}

function podMetricPath(version: CustomMetricsVersion): string {
  return `/apis/${CUSTOM_METRICS_GROUP}/${version}/namespaces/{namespace}/pods/{name}/{metric}`;
}

function listName(version: CustomMetricsVersion): string {
  return schemaName(version, 'MetricValueList');
}

function operation(version: CustomMetricsVersion) {
  const capitalized = version.charAt(0).toUpperCase() + version.slice(1);
  return {
    description:
      'The value of a metric for one pod, or for every pod the labelSelector picks when name is *.',
    operationId: `readCustomMetrics${capitalized}NamespacedPodMetric`,
    tags: [`customMetrics_${version}`],
  };
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  description: string;
}

function parameters(): Parameter[] {
  return [
    { name: 'namespace', in: 'path', description: 'namespace of the pods' },
    { name: 'name', in: 'path', description: 'pod name, or * for all' },
    { name: 'metric', in: 'path', description: 'metric name' },
    {
      name: 'labelSelector',
      in: 'query',
      description: 'selects the pods',
    },
    {
      name: 'metricLabelSelector',
      in: 'query',
      description: 'selects the series; only container=<name> is supported',
    },
  ];
}
