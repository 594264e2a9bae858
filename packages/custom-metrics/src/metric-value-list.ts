import type { LabelSelector } from '@tandem/vpa-api';
import { groupVersion, type CustomMetricsVersion } from './api-group.js';
import { formatMetricQuantity } from './metric-quantity.js';
import type { MetricName } from './metric-names.js';

/**
 * The object a value describes, as custom-metrics-apiserver's `helpers.ReferenceFor` writes
 * it: `apiVersion` is `<group>/<version>`, so `/v1` for the core group's Pod.
 */
export interface DescribedObject {
  kind: string;
  namespace: string;
  name: string;
  apiVersion: string;
}

export const describedPod = (
  namespace: string,
  name: string,
): DescribedObject => ({ kind: 'Pod', namespace, name, apiVersion: '/v1' });

export const describedDeployment = (
  namespace: string,
  name: string,
): DescribedObject => ({
  kind: 'Deployment',
  namespace,
  name,
  apiVersion: 'apps/v1',
});

/**
 * One object's value of one metric, ready to serve; its timestamp is the list's (see
 * `itemList`).
 */
export interface MetricValue {
  describedObject: DescribedObject;
  metric: MetricName;
  /** The request's metricLabelSelector as a LabelSelector; undefined when it had none. */
  selector: LabelSelector | undefined;
  windowSeconds: number;
  /** Whole percent for `*_utilization_*`, cores for `cpu_usage`, bytes for `memory_usage`. */
  value: number;
}

/**
 * One item of a MetricValueList in UTF-8 JSON, but for its timestamp: the bytes before the
 * timestamp's value and those after it. Everything but the time stays the same while the
 * object, its value and the query do, so an item is made once and the time written anew.
 */
export interface ItemBytes {
  readonly beforeTime: Buffer;
  readonly afterTime: Buffer;
}

/**
 * `value`'s item in the shape of `version` (reference §1.4). v1beta1 differs from v1beta2
 * in three places that are easy to get wrong: `metricName` instead of `metric.name`,
 * `selector` on the item, and the window under the key `window`. A missing selector is
 * `null`, not absent: the Go field has no `omitempty`.
 */
export function itemBytes(
  version: CustomMetricsVersion,
  value: MetricValue,
): ItemBytes {
  const described = JSON.stringify(value.describedObject);
  const selector = JSON.stringify(value.selector ?? null);
  const quantity = JSON.stringify(formatMetricQuantity(value.value));
  const window = JSON.stringify(value.windowSeconds);
  return version === 'v1beta2'
    ? {
        beforeTime: Buffer.from(
          `{"describedObject":${described},"metric":{"name":${JSON.stringify(value.metric)},"selector":${selector}},"timestamp":`,
        ),
        afterTime: Buffer.from(
          `,"windowSeconds":${window},"value":${quantity}}`,
        ),
      }
    : {
        beforeTime: Buffer.from(
          `{"describedObject":${described},"metricName":${JSON.stringify(value.metric)},"timestamp":`,
        ),
        afterTime: Buffer.from(
          `,"window":${window},"value":${quantity},"selector":${selector}}`,
        ),
      };
}

/**
 * A MetricValueList of `items` in the shape of `version`, each item stamped `timestamp`
 * (RFC 3339 with second precision, as `metav1.Time` prints), as UTF-8 JSON ready to send. `kind` and `apiVersion` are set at the top because the Go
 * client decodes by them. The bytes are exactly those of `JSON.stringify` of the list
 * object; written from items made once (see `itemBytes`), a 1,000-pod answer (about
 * 260 KB) is a few copies per item (`npm run bench -- metrics-adapter`).
 */
export function itemList(
  version: CustomMetricsVersion,
  timestamp: string,
  items: readonly ItemBytes[],
): Buffer {
  return stampedItemList(version, timestamp, items).body;
}

/** A list's bytes and where each of its timestamps starts, to stamp it anew (`restamped`). */
export interface StampedList {
  readonly body: Buffer;
  /** The timestamp's JSON (with its quotes) in UTF-8. */
  readonly time: Buffer;
  /** The offset of each item's timestamp in `body`. */
  readonly timeAt: readonly number[];
}

/** `itemList`, with where its timestamps are. */
export function stampedItemList(
  version: CustomMetricsVersion,
  timestamp: string,
  items: readonly ItemBytes[],
): StampedList {
  const head = Buffer.from(
    `{"kind":"MetricValueList","apiVersion":${JSON.stringify(groupVersion(version))},"metadata":{},"items":[`,
  );
  const time = Buffer.from(JSON.stringify(timestamp));
  let length = head.length + LIST_CLOSE.length + Math.max(0, items.length - 1);
  for (const { beforeTime, afterTime } of items)
    length += beforeTime.length + time.length + afterTime.length;
  const out = Buffer.allocUnsafe(length);
  const timeAt: number[] = [];
  let at = head.copy(out, 0);
  for (let index = 0; index < items.length; index += 1) {
    const { beforeTime, afterTime } = items[index] as ItemBytes;
    if (index > 0) at = out.writeUInt8(0x2c, at); // ,
    at += beforeTime.copy(out, at);
    timeAt.push(at);
    at += time.copy(out, at);
    at += afterTime.copy(out, at);
  }
  LIST_CLOSE.copy(out, at);
  return { body: out, time, timeAt };
}

/**
 * `list` with every item stamped `timestamp` instead: one copy of the body and the new
 * time written over the old, exactly the bytes `stampedItemList` gives for the same items.
 * A new buffer, since the old one may still be on its way to a client. Undefined when the
 * time's JSON has another length (a year past 9999), which only the whole list can take.
 */
export function restamped(
  list: StampedList,
  timestamp: string,
): StampedList | undefined {
  const time = Buffer.from(JSON.stringify(timestamp));
  if (time.length !== list.time.length) return undefined;
  const body = Buffer.allocUnsafe(list.body.length);
  list.body.copy(body);
  for (const at of list.timeAt) time.copy(body, at);
  return { body, time, timeAt: list.timeAt };
}

const LIST_CLOSE = Buffer.from(']}');

/** A MetricValueList of `values`: `itemList` of each value's `itemBytes`. */
export function metricValueList(
  version: CustomMetricsVersion,
  timestamp: string,
  values: readonly MetricValue[],
): Buffer {
  return itemList(
    version,
    timestamp,
    values.map((value) => itemBytes(version, value)),
  );
}
