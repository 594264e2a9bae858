import {
  CUSTOM_METRICS_GROUP,
  type CustomMetricsVersion,
} from './api-group.js';

/** A JSON Schema object in the subset Swagger 2.0 and OpenAPI 3.0 share. */
export type Schema = Record<string, unknown>;

/** The definition name upstream's generated OpenAPI uses for a kind of the group. */
export function schemaName(
  version: CustomMetricsVersion,
  kind: string,
): string {
  return `io.k8s.metrics.pkg.apis.custom_metrics.${version}.${kind}`;
}

/**
 * MetricValueList and what it holds, for `version`, keyed by definition name; `$ref`s point
 * under `refPrefix` (`#/definitions/` or `#/components/schemas/`). Object references and
 * selectors are inlined rather than pointing at the apimachinery definitions, so the
 * aggregated document never carries a second, different `ListMeta` or `LabelSelector`.
 */
export function metricValueListSchemas(
  version: CustomMetricsVersion,
  refPrefix: string,
): Record<string, Schema> {
  const ref = (kind: string) => ({
    $ref: refPrefix + schemaName(version, kind),
  });
  const schemas: Record<string, Schema> = {
    [schemaName(version, 'MetricValueList')]: {
      description:
        'A list of values for a given metric for some set of objects.',
      type: 'object',
      required: ['metadata', 'items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', description: 'Standard list metadata.' },
        items: {
          type: 'array',
          description: 'The values of the metric for the described objects.',
          items: ref('MetricValue'),
        },
      },
      'x-kubernetes-group-version-kind': [
        { group: CUSTOM_METRICS_GROUP, kind: 'MetricValueList', version },
      ],
    },
  };
  if (version === 'v1beta2') {
    schemas[schemaName(version, 'MetricValue')] = metricValue(
      ['describedObject', 'metric', 'timestamp', 'value'],
      {
        metric: ref('MetricIdentifier'),
        windowSeconds: window(),
      },
    );
    schemas[schemaName(version, 'MetricIdentifier')] = {
      description: 'Identifies a metric by name and, optionally, selector.',
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', description: 'The name of the metric.' },
        selector: labelSelector(),
      },
    };
  } else {
    schemas[schemaName(version, 'MetricValue')] = metricValue(
      ['describedObject', 'metricName', 'timestamp', 'value'],
      {
        metricName: { type: 'string', description: 'The name of the metric.' },
        window: window(),
        selector: labelSelector(),
      },
    );
  }
  return schemas;
}

function metricValue(
  required: string[],
  versionProperties: Record<string, Schema>,
): Schema {
  return {
    description: 'The value of a metric for one object.',
    type: 'object',
    required,
    properties: {
      describedObject: objectReference(),
      timestamp: {
        type: 'string',
        format: 'date-time',
        description: 'When the value was measured.',
      },
      value: {
        type: 'string',
        description: 'The value as a Kubernetes quantity, e.g. 61500m.',
      },
      ...versionProperties,
    },
  };
}

function window(): Schema {
  return {
    type: 'integer',
    format: 'int64',
    description: 'Seconds over which the value was measured.',
  };
}

function objectReference(): Schema {
  const text = { type: 'string' };
  return {
    type: 'object',
    description: 'The object the metric describes.',
    properties: {
      apiVersion: text,
      kind: text,
      name: text,
      namespace: text,
      uid: text,
      resourceVersion: text,
    },
  };
}

function labelSelector(): Schema {
  const text = { type: 'string' };
  return {
    type: 'object',
    description: 'The metric label selector the value was computed with.',
    properties: {
      matchLabels: { type: 'object', additionalProperties: text },
      matchExpressions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['key', 'operator'],
          properties: {
            key: text,
            operator: text,
            values: { type: 'array', items: text },
          },
        },
      },
    },
  };
}
