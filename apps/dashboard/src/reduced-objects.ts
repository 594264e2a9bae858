import type {
  HpaMetric,
  ObservedEvent,
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  PerContainer,
  Resources,
  TargetRef,
} from '@tandem/dashboard-core';
import {
  parseCpuMillicores,
  parseMemoryBytes,
  parseOriginalResources,
  parseQuantity,
  PodAnnotation,
  type Labels,
} from '@tandem/vpa-api';

/**
 * The cluster's objects as the dashboard keeps them: what its pages show and nothing else,
 * read defensively (an object another controller wrote badly shows as less, never fails a
 * page). Each keeps `metadata` with name, namespace and resourceVersion for the cache.
 */
type Json = Record<string, unknown> | undefined;

interface Kept {
  metadata: { name: string; namespace: string; resourceVersion?: string };
}

const record = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

function kept(object: Json): Kept['metadata'] {
  const metadata = record(object?.['metadata']);
  return {
    name: text(metadata?.['name']) ?? '',
    namespace: text(metadata?.['namespace']) ?? '',
    resourceVersion: text(metadata?.['resourceVersion']),
  };
}

function quantityOf(
  parse: (text: string) => number,
  value: unknown,
): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return parse(String(value));
  } catch {
    return undefined;
  }
}

/** `{cpu: "250m", memory: "256Mi"}` as millicores and bytes. */
export function resourcesOf(list: unknown): Resources {
  const values = record(list);
  const cpuMillicores = quantityOf(parseCpuMillicores, values?.['cpu']);
  const memoryBytes = quantityOf(parseMemoryBytes, values?.['memory']);
  return {
    ...(cpuMillicores === undefined ? {} : { cpuMillicores }),
    ...(memoryBytes === undefined ? {} : { memoryBytes }),
  };
}

/** A VPA's `targetRef` or an HPA's `scaleTargetRef`. */
function targetRefOf(ref: Json): TargetRef {
  return {
    apiVersion: text(ref?.['apiVersion']),
    kind: text(ref?.['kind']) ?? '',
    name: text(ref?.['name']) ?? '',
  };
}

export type KeptVpa = Kept & { vpa: ObservedVpa };

export function reducedVpa(object: unknown): KeptVpa {
  const vpa = record(object);
  const metadata = kept(vpa);
  const spec = record(vpa?.['spec']);
  const targetRef = record(spec?.['targetRef']);
  const recommendations = list(
    record(record(vpa?.['status'])?.['recommendation'])?.[
      'containerRecommendations'
    ],
  ).map(record);
  const per = (field: string): PerContainer =>
    Object.fromEntries(
      recommendations.flatMap((entry) => {
        const name = text(entry?.['containerName']);
        return name === undefined ? [] : [[name, resourcesOf(entry?.[field])]];
      }),
    );
  const strategy = text(
    record(record(vpa?.['metadata'])?.['annotations'])?.['tandem.dev/strategy'],
  );
  return {
    metadata,
    vpa: {
      namespace: metadata.namespace,
      name: metadata.name,
      targetRef: targetRefOf(targetRef),
      // Unset or empty is Recreate, as upstream reads it (`getUpdateMode`).
      mode: text(record(spec?.['updatePolicy'])?.['updateMode']) || 'Recreate',
      ...(strategy === undefined ? {} : { strategy }),
      target: per('target'),
      lowerBound: per('lowerBound'),
      upperBound: per('upperBound'),
    },
  };
}

export type KeptHpa = Kept & { hpa: ObservedHpa };

export function reducedHpa(object: unknown): KeptHpa {
  const hpa = record(object);
  const metadata = kept(hpa);
  const spec = record(hpa?.['spec']);
  const status = record(hpa?.['status']);
  const targetRef = record(spec?.['scaleTargetRef']);
  const metric = firstMetric(
    record(list(spec?.['metrics'])[0]),
    record(list(status?.['currentMetrics'])[0]),
  );
  return {
    metadata,
    hpa: {
      namespace: metadata.namespace,
      name: metadata.name,
      targetRef: targetRefOf(targetRef),
      minReplicas: numberOr(spec?.['minReplicas'], 1),
      maxReplicas: numberOr(spec?.['maxReplicas'], 1),
      currentReplicas: numberOr(status?.['currentReplicas'], 0),
      desiredReplicas: numberOr(status?.['desiredReplicas'], 0),
      ...(metric === undefined ? {} : { metric }),
    },
  };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** The source under a metric's type (`resource`, `pods`, `object`, …) in spec or status. */
function sourceOf(metric: Json): Json {
  const type = text(metric?.['type']);
  if (type === undefined) return undefined;
  return record(metric?.[type.charAt(0).toLowerCase() + type.slice(1)]);
}

function firstMetric(spec: Json, current: Json): HpaMetric | undefined {
  const type = text(spec?.['type']);
  const source = sourceOf(spec);
  const target = record(source?.['target']);
  const targetType = text(target?.['type']);
  if (
    type === undefined ||
    (targetType !== 'Utilization' &&
      targetType !== 'AverageValue' &&
      targetType !== 'Value')
  )
    return undefined;
  const name =
    text(source?.['name']) ?? text(record(source?.['metric'])?.['name']) ?? '';
  const valueOf = (values: Json) =>
    targetType === 'Utilization'
      ? (values?.['averageUtilization'] as number | undefined)
      : quantityOf(
          (quantity) => Number(parseQuantity(quantity).milliValue()) / 1000,
          values?.[targetType === 'Value' ? 'value' : 'averageValue'],
        );
  const targetValue = valueOf(target);
  if (typeof targetValue !== 'number') return undefined;
  const currentValue =
    text(current?.['type']) === type
      ? valueOf(record(sourceOf(current)?.['current']))
      : undefined;
  const container = text(source?.['container']);
  return {
    type,
    name,
    ...(container === undefined ? {} : { container }),
    targetType,
    target: targetValue,
    ...(typeof currentValue === 'number' ? { current: currentValue } : {}),
  };
}

export type KeptPod = Kept & { labels: Labels; pod: ObservedPod };

/**
 * A pod as the HPA would count it; a pod being deleted or Failed is one the HPA ignores,
 * kept as `ignored` so the caches still track it.
 */
export function reducedPod(object: unknown): KeptPod & { ignored: boolean } {
  const pod = record(object);
  const metadata = kept(pod);
  const meta = record(pod?.['metadata']);
  const status = record(pod?.['status']);
  const phase = text(status?.['phase']);
  const requests: Record<string, Resources> = {};
  for (const container of list(record(pod?.['spec'])?.['containers']).map(
    record,
  )) {
    const name = text(container?.['name']);
    if (name !== undefined)
      requests[name] = resourcesOf(
        record(container?.['resources'])?.['requests'],
      );
  }
  const annotation = text(
    record(meta?.['annotations'])?.[PodAnnotation.originalResources],
  );
  const original =
    annotation === undefined ? undefined : parseOriginalResources(annotation);
  const declared =
    original === undefined || original instanceof Error
      ? requests
      : Object.fromEntries(
          [...original].map(([name, entry]) => [
            name,
            resourcesOf(entry.requests),
          ]),
        );
  const ready = list(status?.['conditions'])
    .map(record)
    .some((c) => c?.['type'] === 'Ready' && c['status'] === 'True');
  return {
    metadata,
    labels: (record(meta?.['labels']) ?? {}) as Labels,
    ignored:
      (meta?.['deletionTimestamp'] !== undefined &&
        meta['deletionTimestamp'] !== null) ||
      phase === 'Failed',
    pod: {
      name: metadata.name,
      pending: phase === 'Pending',
      ready,
      requests,
      declared,
    },
  };
}

export type KeptEvent = Kept & { event: ObservedEvent };

export function reducedEvent(object: unknown): KeptEvent {
  const event = record(object);
  const metadata = kept(event);
  const involved = record(event?.['involvedObject']);
  const time =
    text(event?.['lastTimestamp']) ??
    text(event?.['eventTime']) ??
    text(record(event?.['metadata'])?.['creationTimestamp']);
  return {
    metadata,
    event: {
      // An unreadable time sorts first rather than breaking the page.
      timeMs: finiteOr(time === undefined ? NaN : Date.parse(time), 0),
      type: text(event?.['type']) ?? 'Normal',
      reason: text(event?.['reason']) ?? '',
      message: text(event?.['message']) ?? '',
      component:
        text(event?.['reportingComponent']) ||
        text(record(event?.['source'])?.['component']) ||
        '',
      count: numberOr(event?.['count'], 1),
      object: {
        kind: text(involved?.['kind']) ?? '',
        name: text(involved?.['name']) ?? '',
      },
    },
  };
}
