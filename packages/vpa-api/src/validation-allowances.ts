import { forbidden, type FieldError } from './field-errors.js';
import { isAbsent, isRecord } from './guards.js';
import { FeatureGate, UpdateMode, type FeatureGates } from './types.js';

/**
 * What an update may keep using although its feature gate is off: upstream lets a VPA keep
 * any gated feature its stored version already uses, so turning a gate off never makes
 * existing objects impossible to update.
 */
export interface Allowances {
  inPlace: boolean;
  cpuStartupBoost: boolean;
  perVpaConfig: boolean;
  /** `controlledResources` entries of the stored object, tolerated (with a warning) on update. */
  existingControlledResources: ReadonlySet<string>;
}

const PER_VPA_CONTAINER_FIELDS = [
  'oomBumpUpRatio',
  'oomMinBumpUp',
  'memoryAggregationIntervalSeconds',
  'memoryAggregationIntervalCount',
];

/** Reads the stored object leniently: anything malformed simply grants nothing. */
export function allowancesFor(
  oldVpa: unknown,
  gates: FeatureGates,
): Allowances {
  const spec = recordAt(oldVpa, 'spec');
  const updatePolicy = recordAt(spec, 'updatePolicy');
  const policies = listAt(
    recordAt(spec, 'resourcePolicy'),
    'containerPolicies',
  ).filter(isRecord);
  return {
    inPlace:
      Boolean(gates[FeatureGate.InPlace]) ||
      updatePolicy['updateMode'] === UpdateMode.InPlace,
    cpuStartupBoost:
      Boolean(gates[FeatureGate.CPUStartupBoost]) ||
      !isAbsent(recordAt(spec, 'startupBoost')['cpu']) ||
      policies.some((policy) => !isAbsent(policy['startupBoost'])),
    perVpaConfig:
      Boolean(gates[FeatureGate.PerVPAConfig]) ||
      !isAbsent(updatePolicy['evictAfterOOMSeconds']) ||
      policies.some((policy) =>
        PER_VPA_CONTAINER_FIELDS.some((field) => !isAbsent(policy[field])),
      ),
    existingControlledResources: new Set(
      policies
        .flatMap((policy) => listAt(policy, 'controlledResources'))
        .filter((name): name is string => typeof name === 'string'),
    ),
  };
}

function recordAt(value: unknown, key: string): Record<string, unknown> {
  const child = isRecord(value) ? value[key] : undefined;
  return isRecord(child) ? child : {};
}

function listAt(value: unknown, key: string): unknown[] {
  const child = isRecord(value) ? value[key] : undefined;
  return Array.isArray(child) ? child : [];
}

/** The error for a PerVPAConfig field used while neither the gate nor the stored object allows it. */
export function perVpaConfigForbidden(path: string): FieldError {
  return forbidden(
    path,
    `not supported when feature flag ${FeatureGate.PerVPAConfig} is disabled`,
  );
}
