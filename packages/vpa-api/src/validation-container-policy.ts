import {
  childPath,
  forbidden,
  indexPath,
  invalid,
  notSupported,
  required,
} from './field-errors.js';
import { isAbsent } from './guards.js';
import { Quantity } from './quantity.js';
import {
  perVpaConfigForbidden,
  type Allowances,
} from './validation-allowances.js';
import type { Findings } from './validation-findings.js';
import {
  ContainerScalingMode,
  ControlledValues,
  FeatureGate,
  ResourceName,
  StartupBoostType,
} from './types.js';

const CONTROLLABLE_RESOURCES = [ResourceName.cpu, ResourceName.memory];

/** One entry of `spec.resourcePolicy.containerPolicies`. */
export function validateContainerPolicy(
  value: unknown,
  path: string,
  findings: Findings,
  allow: Allowances,
): void {
  const policy = findings.object(value, path);
  if (!policy) return;
  const at = (field: string) => childPath(path, field);

  findings.requiredString(policy['containerName'], at('containerName'));
  const mode = enumValue(
    policy['mode'],
    at('mode'),
    Object.values(ContainerScalingMode),
    findings,
  );
  const controlledValues = enumValue(
    policy['controlledValues'],
    at('controlledValues'),
    Object.values(ControlledValues),
    findings,
  );
  if (
    mode === ContainerScalingMode.Off &&
    controlledValues === ControlledValues.RequestsAndLimits
  ) {
    findings.add(
      forbidden(
        at('controlledValues'),
        "controlledValues shouldn't be specified if container scaling mode is off",
      ),
    );
  }
  validateMinMaxAllowed(policy, path, findings);
  validateControlledResources(
    policy['controlledResources'],
    at('controlledResources'),
    findings,
    allow,
  );
  validatePerVpaConfig(policy, path, findings, allow);
  validateStartupBoost(
    policy['startupBoost'],
    at('startupBoost'),
    findings,
    allow,
  );
}

/** Whole millicores for CPU, whole bytes for memory, and every maximum at least its minimum. */
function validateMinMaxAllowed(
  policy: Record<string, unknown>,
  path: string,
  findings: Findings,
): void {
  const minAllowed = resourceList(
    policy['minAllowed'],
    childPath(path, 'minAllowed'),
    findings,
  );
  const maxAllowed = resourceList(
    policy['maxAllowed'],
    childPath(path, 'maxAllowed'),
    findings,
  );
  for (const [resource, min] of minAllowed) {
    const max = maxAllowed.get(resource);
    if (max !== undefined && max.cmp(min) < 0) {
      findings.add(
        invalid(
          childPath(childPath(path, 'maxAllowed'), resource),
          max.toString(),
          `max resource for ${resource} is lower than min of "${min.toString()}"`,
        ),
      );
    }
  }
}

function resourceList(
  value: unknown,
  path: string,
  findings: Findings,
): Map<string, Quantity> {
  const parsed = new Map<string, Quantity>();
  for (const [resource, text] of Object.entries(
    findings.object(value, path) ?? {},
  )) {
    const resourcePath = childPath(path, resource);
    const quantity = findings.quantity(text, resourcePath);
    if (quantity === undefined) continue;
    if (resource === ResourceName.cpu)
      requireWholeMillicores(quantity, resourcePath, findings);
    if (resource === ResourceName.memory && !isWholeUnits(quantity)) {
      findings.add(
        invalid(
          resourcePath,
          quantity.toString(),
          'must be a whole number of bytes',
        ),
      );
    }
    parsed.set(resource, quantity);
  }
  return parsed;
}

function validateControlledResources(
  value: unknown,
  path: string,
  findings: Findings,
  allow: Allowances,
): void {
  (findings.list(value, path) ?? []).forEach((entry, index) => {
    const entryPath = indexPath(path, index);
    const resource = findings.string(entry, entryPath);
    if (
      resource === undefined ||
      (CONTROLLABLE_RESOURCES as string[]).includes(resource)
    )
      return;
    if (allow.existingControlledResources.has(resource)) {
      findings.warn(
        `${entryPath}: unsupported value ${JSON.stringify(resource)} is allowed only because it is present in the existing VPA object; supported values: "cpu", "memory"`,
      );
    } else {
      findings.add(notSupported(entryPath, resource, CONTROLLABLE_RESOURCES));
    }
  });
}

/** oomBumpUpRatio ≥ 1, oomMinBumpUp ≥ 0 and the memory aggregation window ≥ 1, all gated. */
function validatePerVpaConfig(
  policy: Record<string, unknown>,
  path: string,
  findings: Findings,
  allow: Allowances,
): void {
  const gated = (field: string) => {
    if (!allow.perVpaConfig)
      findings.add(perVpaConfigForbidden(childPath(path, field)));
    return allow.perVpaConfig;
  };
  const ratioPath = childPath(path, 'oomBumpUpRatio');
  const ratio = findings.quantity(policy['oomBumpUpRatio'], ratioPath);
  // Compared in millis, as upstream does: 0.9999 rounds up to 1.000 and passes.
  if (
    ratio !== undefined &&
    gated('oomBumpUpRatio') &&
    ratio.milliValue() < 1000n
  ) {
    findings.add(
      invalid(
        ratioPath,
        Number(ratio.milliValue()) / 1000,
        'must be greater than or equal to 1.0',
      ),
    );
  }
  const minBumpPath = childPath(path, 'oomMinBumpUp');
  const minBump = findings.quantity(policy['oomMinBumpUp'], minBumpPath);
  if (minBump !== undefined && gated('oomMinBumpUp') && minBump.value() < 0n) {
    findings.add(
      invalid(
        minBumpPath,
        Number(minBump.value()),
        'must be greater than or equal to 0',
      ),
    );
  }
  const windows = [
    ['memoryAggregationIntervalSeconds', 'int32'],
    ['memoryAggregationIntervalCount', 'int64'],
  ] as const;
  for (const [field, width] of windows) {
    const fieldPath = childPath(path, field);
    const count = findings.integer(policy[field], fieldPath, width);
    if (count !== undefined && gated(field) && count < 1) {
      findings.add(
        invalid(fieldPath, count, 'must be greater than or equal to 1'),
      );
    }
  }
}

/** `startupBoost` of the spec or of a container policy. */
export function validateStartupBoost(
  value: unknown,
  path: string,
  findings: Findings,
  allow: Allowances,
): void {
  const startupBoost = findings.object(value, path);
  if (!startupBoost) return;
  if (!allow.cpuStartupBoost) {
    findings.add(
      forbidden(
        path,
        `in order to use startupBoost, you must enable feature gate ${FeatureGate.CPUStartupBoost} in the admission-controller args`,
      ),
    );
    return;
  }
  const cpuPath = childPath(path, 'cpu');
  const cpu = findings.object(startupBoost['cpu'], cpuPath);
  if (!cpu) return;
  const at = (field: string) => childPath(cpuPath, field);
  findings.integer(cpu['durationSeconds'], at('durationSeconds'), 'int32');
  const type = findings.requiredString(
    cpu['type'],
    at('type'),
    'must be either Factor or Quantity',
  );
  if (type === undefined) return;
  if (type === StartupBoostType.Factor) {
    const factor = findings.integer(cpu['factor'], at('factor'), 'int32');
    if (isAbsent(cpu['factor'])) {
      findings.add(required(at('factor'), 'required when type is Factor'));
    } else if (factor !== undefined && factor < 1) {
      findings.add(
        invalid(at('factor'), factor, 'must be >= 1 for type Factor'),
      );
    }
  } else if (type === StartupBoostType.Quantity) {
    const quantity = findings.quantity(cpu['quantity'], at('quantity'));
    if (isAbsent(cpu['quantity'])) {
      findings.add(required(at('quantity'), 'required when type is Quantity'));
    } else if (quantity !== undefined) {
      requireWholeMillicores(quantity, at('quantity'), findings);
    }
  } else {
    findings.add(
      notSupported(at('type'), type, Object.values(StartupBoostType)),
    );
  }
}

function enumValue(
  value: unknown,
  path: string,
  supported: readonly string[],
  findings: Findings,
): string | undefined {
  const text = findings.string(value, path);
  if (text !== undefined && !supported.includes(text))
    findings.add(notSupported(path, text, supported));
  return text;
}

function requireWholeMillicores(
  quantity: Quantity,
  path: string,
  findings: Findings,
): void {
  if (
    quantity.cmp(Quantity.fromMilli(quantity.milliValue(), quantity.format)) !==
    0
  ) {
    findings.add(
      invalid(
        path,
        quantity.toString(),
        'must be a whole number of milli CPUs',
      ),
    );
  }
}

function isWholeUnits(quantity: Quantity): boolean {
  return (
    quantity.cmp(Quantity.fromValue(quantity.value(), quantity.format)) === 0
  );
}
