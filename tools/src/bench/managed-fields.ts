import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';

/**
 * List elements are keyed by these fields, in this order of preference, as the built-in
 * types' `+listMapKey` markers declare them (containers, env, volumes by name; ports by
 * containerPort and protocol; conditions by type; volume mounts by mountPath; owner
 * references by uid; pod IPs by ip). A list of anything else is atomic: one leaf.
 */
const LIST_MAP_KEYS: readonly (readonly string[])[] = [
  ['uid'],
  ['containerPort', 'protocol'],
  ['type'],
  ['mountPath'],
  ['name'],
  ['ip'],
];

/**
 * The `fieldsV1` of a managedFields entry owning every field `value` sets, as the API server
 * writes it (sigs.k8s.io/structured-merge-diff, fieldpath/serialize.go): `f:<field>` per
 * field, `k:{...}` per element of a keyed list, `.` for a map or element that is itself
 * owned, `{}` for a leaf.
 */
export function fieldsV1Of(value: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([name, field]) => [`f:${name}`, fieldSet(field as unknown)]),
  );
}

/** One managedFields entry of `manager`, as written by an `Update` at `time`. */
export function managedFieldsEntry(
  manager: string,
  time: Date,
  fields: object,
  subresource?: string,
): V1ManagedFieldsEntry {
  return {
    manager,
    operation: 'Update',
    apiVersion: 'v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1Of(fields),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

function fieldSet(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return listSet(value);
  if (value === null || typeof value !== 'object' || value instanceof Date)
    return {};
  return { '.': {}, ...fieldsV1Of(value) };
}

function listSet(items: readonly unknown[]): Record<string, unknown> {
  const objects = items.filter(
    (item): item is Record<string, unknown> =>
      item !== null && typeof item === 'object',
  );
  const keys = LIST_MAP_KEYS.find((candidate) =>
    objects.every((item) => candidate.every((key) => key in item)),
  );
  if (objects.length === 0 || objects.length < items.length || !keys) return {};
  return Object.fromEntries([
    ['.', {}],
    ...objects.map((item) => [
      `k:${JSON.stringify(Object.fromEntries(keys.map((key) => [key, item[key]])))}`,
      fieldSet(item),
    ]),
  ]);
}
