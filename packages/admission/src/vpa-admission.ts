import { DEFAULT_STRATEGY, vpaStrategy } from '@tandem/strategies';
import {
  UpdateMode,
  VPA_API_GROUP,
  VPA_KIND,
  validateVerticalPodAutoscaler,
  type FeatureGates,
  type FieldError,
} from '@tandem/vpa-api';
import type { ResponseStatus } from './admission-review.js';
import { WARNING_PREFIX, type Decision } from './decision.js';
import { isAbsent, isRecord } from './guards.js';
import { jsonPointer, patchProblem, type AddOperation } from './json-patch.js';
import type { ReviewRequest } from './review-request.js';
import { describeResource } from './reviewed-resource.js';
import { capMessage } from './text.js';

/**
 * Validates a VPA on CREATE and UPDATE (§6.3): field errors deny it with 422 Invalid, and
 * validation warnings travel back to the client. As upstream, a VPA without `updatePolicy`
 * gets `{updateMode: Recreate}` written into it. Other operations are allowed untouched.
 */
export function admitVpa(
  request: ReviewRequest,
  featureGates: FeatureGates,
): Decision {
  const object = request.object;
  const vpaName = nameOf(object) ?? request.name;
  const names = {
    ...(request.namespace !== undefined && { namespace: request.namespace }),
    ...(vpaName !== undefined && { vpaName }),
  };
  const allow = (
    outcome: Decision['outcome'],
    message: string,
    extra: Partial<Decision> = {},
  ): Decision => ({
    resource: 'VPA',
    outcome,
    message: capMessage(message),
    allowed: true,
    names,
    ...extra,
  });
  if (request.subResource !== undefined) {
    return allow(
      'skipped',
      `${describeResource(request)}: subresources are not validated`,
    );
  }
  const operation = request.operation;
  if (operation !== 'CREATE' && operation !== 'UPDATE') {
    return allow(
      'skipped',
      `operation ${operation ?? '(none)'}: only CREATE and UPDATE are validated`,
    );
  }
  if (isAbsent(object)) {
    // Nothing to judge; the API server always sends the object, so this is a broken caller.
    const message = `malformed review: request.object missing for ${operation}`;
    return allow('error', message, {
      warnings: [capMessage(`${WARNING_PREFIX}${message}`)],
    });
  }
  const oldObject = operation === 'UPDATE' ? request.oldObject : undefined;
  const { errors: fieldErrors, warnings } = validateVerticalPodAutoscaler(
    object,
    isAbsent(oldObject) ? undefined : oldObject,
    isRecord(featureGates) ? featureGates : {},
  );
  const errors = [...fieldErrors, ...strategyErrors(object)];
  const warningsField = warnings.length > 0 ? { warnings } : {};
  if (errors.length > 0) {
    const status = invalidStatus(errors, vpaName);
    return {
      resource: 'VPA',
      outcome: 'error',
      message: capMessage(`VPA invalid: ${status.message}`),
      allowed: false,
      status,
      ...warningsField,
      names,
    };
  }
  const patch = defaultUpdatePolicy(object);
  if (patch.length > 0) {
    const problem = patchProblem(object as object, patch);
    if (problem === undefined) {
      return allow(
        'applied',
        `VPA valid; spec.updatePolicy defaulted to updateMode ${UpdateMode.Recreate}`,
        { patch, ...warningsField },
      );
    }
  }
  return allow('skipped', 'VPA valid', warningsField);
}

/**
 * The `tandem.dev/strategy` annotation and its parameters, read as the recommender reads
 * them. The default strategy stands in for the recommender's `--default-strategy`, which
 * the webhook cannot see: it only matters for a VPA without the annotation, and such a VPA
 * may carry no parameter, so the choice never changes the verdict.
 */
function strategyErrors(object: unknown): FieldError[] {
  if (!isRecord(object) || !isRecord(object['metadata'])) return [];
  const annotations = object['metadata']['annotations'];
  if (!isRecord(annotations)) return [];
  const texts: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations))
    if (typeof value === 'string') texts[key] = value;
  const read = vpaStrategy(texts, DEFAULT_STRATEGY);
  if (!('error' in read)) return [];
  // The annotation goes in the cause's field, as every other field error's path does:
  // kubectl prints each cause as `<field>: <message>`, so with an empty field it printed
  // `is invalid: : metadata.annotations[...]: ...`.
  return [
    {
      type: 'FieldValueInvalid',
      path: read.field ?? '',
      message: read.field === undefined ? read.error : read.reason,
    },
  ];
}

/** Upstream's only VPA mutation: an absent `spec.updatePolicy` becomes `{updateMode: Recreate}`. */
function defaultUpdatePolicy(object: unknown): AddOperation[] {
  if (!isRecord(object) || !isRecord(object['spec'])) return [];
  if (!isAbsent(object['spec']['updatePolicy'])) return [];
  return [
    {
      op: 'add',
      path: jsonPointer('spec', 'updatePolicy'),
      value: { updateMode: UpdateMode.Recreate },
    },
  ];
}

/** A `metav1.Status` like the API server's own for an invalid object. */
function invalidStatus(
  errors: readonly FieldError[],
  name: string | undefined,
): ResponseStatus {
  return {
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: errors
      .map((error) =>
        error.path === '' ? error.message : `${error.path}: ${error.message}`,
      )
      .join('; '),
    details: {
      ...(name !== undefined && { name }),
      group: VPA_API_GROUP,
      kind: VPA_KIND,
      causes: errors.map((error) => ({
        reason: error.type,
        message: error.message,
        field: error.path,
      })),
    },
  };
}

function nameOf(object: unknown): string | undefined {
  if (!isRecord(object) || !isRecord(object['metadata'])) return undefined;
  const name = object['metadata']['name'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}
