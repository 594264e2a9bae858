import {
  childPath,
  forbidden,
  indexPath,
  invalid,
  notSupported,
  required,
  tooMany,
  typeInvalid,
  type FieldError,
} from './field-errors.js';
import { isAbsent, isRecord } from './guards.js';
import {
  allowancesFor,
  perVpaConfigForbidden,
  type Allowances,
} from './validation-allowances.js';
import {
  validateContainerPolicy,
  validateStartupBoost,
} from './validation-container-policy.js';
import { Findings } from './validation-findings.js';
import {
  EvictionChangeRequirement,
  FeatureGate,
  UpdateMode,
  type FeatureGates,
} from './types.js';

export interface ValidationResult {
  /** Any error means the object must be rejected (422 Invalid). */
  errors: FieldError[];
  /** Accepted, but worth telling the user (admission warnings). */
  warnings: string[];
}

/** Update modes a user is pointed to; `Auto` still works but is deprecated. */
const SUPPORTED_UPDATE_MODES = Object.values(UpdateMode)
  .filter((mode) => mode !== UpdateMode.Auto)
  .sort();

/**
 * Validates a VerticalPodAutoscaler on create (`oldVpa` undefined) or update, as upstream's
 * admission controller does (§6.3), plus the CRD schema's required fields and enums, so it
 * is safe on objects that never went through the API server. Malformed input of any shape
 * yields FieldErrors, never an exception.
 *
 * Gated fields (InPlace mode, startupBoost, the PerVPAConfig fields) are accepted when their
 * gate is on, or on update when the stored object already uses a feature of that gate.
 */
export function validateVerticalPodAutoscaler(
  vpa: unknown,
  oldVpa: unknown,
  featureGates: FeatureGates = {},
): ValidationResult {
  const findings = new Findings();
  const allow = allowancesFor(oldVpa, featureGates);
  if (!isRecord(vpa)) {
    findings.add(typeInvalid('', vpa, 'a VerticalPodAutoscaler object'));
  } else if (isAbsent(vpa['spec'])) {
    findings.add(required('spec'));
  } else {
    const spec = findings.object(vpa['spec'], 'spec');
    if (spec) validateSpec(spec, findings, allow);
  }
  return { errors: findings.errors, warnings: findings.warnings };
}

function validateSpec(
  spec: Record<string, unknown>,
  findings: Findings,
  allow: Allowances,
): void {
  validateTargetRef(spec['targetRef'], findings);
  const updatePolicy = findings.object(
    spec['updatePolicy'],
    'spec.updatePolicy',
  );
  if (updatePolicy) validateUpdatePolicy(updatePolicy, findings, allow);
  const resourcePolicy = findings.object(
    spec['resourcePolicy'],
    'spec.resourcePolicy',
  );
  const policiesPath = 'spec.resourcePolicy.containerPolicies';
  const policies =
    findings.list(resourcePolicy?.['containerPolicies'], policiesPath) ?? [];
  policies.forEach((policy, index) =>
    validateContainerPolicy(
      policy,
      indexPath(policiesPath, index),
      findings,
      allow,
    ),
  );
  validateStartupBoost(
    spec['startupBoost'],
    'spec.startupBoost',
    findings,
    allow,
  );
  validateRecommenders(spec['recommenders'], findings);
}

function validateTargetRef(value: unknown, findings: Findings): void {
  const path = 'spec.targetRef';
  if (isAbsent(value)) {
    findings.add(
      required(
        path,
        "If you're using v1beta1 version of the API, please migrate to v1",
      ),
    );
    return;
  }
  const targetRef = findings.object(value, path);
  if (!targetRef) return;
  findings.requiredString(targetRef['kind'], childPath(path, 'kind'));
  findings.requiredString(targetRef['name'], childPath(path, 'name'));
  findings.string(targetRef['apiVersion'], childPath(path, 'apiVersion'));
}

function validateUpdatePolicy(
  updatePolicy: Record<string, unknown>,
  findings: Findings,
  allow: Allowances,
): void {
  const path = 'spec.updatePolicy';
  const modePath = childPath(path, 'updateMode');
  const mode = findings.requiredString(
    updatePolicy['updateMode'],
    modePath,
    'updateMode is required if UpdatePolicy is used',
  );
  if (mode !== undefined) validateUpdateMode(mode, findings, allow);

  const minReplicasPath = childPath(path, 'minReplicas');
  const minReplicas = findings.integer(
    updatePolicy['minReplicas'],
    minReplicasPath,
    'int32',
  );
  if (minReplicas !== undefined && minReplicas <= 0) {
    findings.add(
      invalid(minReplicasPath, minReplicas, 'minReplicas has to be positive'),
    );
  }

  const oomPath = childPath(path, 'evictAfterOOMSeconds');
  const evictAfterOOM = findings.integer(
    updatePolicy['evictAfterOOMSeconds'],
    oomPath,
    'int32',
  );
  if (evictAfterOOM !== undefined) {
    if (!allow.perVpaConfig) findings.add(perVpaConfigForbidden(oomPath));
    else if (evictAfterOOM < 1) {
      findings.add(
        invalid(oomPath, evictAfterOOM, 'must be greater than or equal to 1'),
      );
    }
  }

  const requirementsPath = childPath(path, 'evictionRequirements');
  const requirements =
    findings.list(updatePolicy['evictionRequirements'], requirementsPath) ?? [];
  requirements.forEach((requirement, index) =>
    validateEvictionRequirement(
      requirement,
      indexPath(requirementsPath, index),
      findings,
    ),
  );
}

function validateUpdateMode(
  mode: string,
  findings: Findings,
  allow: Allowances,
): void {
  const path = 'spec.updatePolicy.updateMode';
  if (!(Object.values(UpdateMode) as string[]).includes(mode)) {
    findings.add(notSupported(path, mode, SUPPORTED_UPDATE_MODES));
  }
  if (mode === UpdateMode.Auto) {
    findings.warn(
      `spec.updatePolicy: "Auto" mode is deprecated and will be removed in a future API version. Use explicit update modes like: [${SUPPORTED_UPDATE_MODES.join(' ')}]. See https://github.com/kubernetes/autoscaler/issues/8424 for more details.`,
    );
  }
  if (mode === UpdateMode.InPlace && !allow.inPlace) {
    findings.add(
      forbidden(
        path,
        `in order to use UpdateMode ${UpdateMode.InPlace}, you must enable feature gate ${FeatureGate.InPlace} in the admission-controller args`,
      ),
    );
  }
}

function validateEvictionRequirement(
  value: unknown,
  path: string,
  findings: Findings,
): void {
  const requirement = findings.object(value, path);
  if (!requirement) return;
  const resourcesPath = childPath(path, 'resources');
  if (isAbsent(requirement['resources'])) findings.add(required(resourcesPath));
  const resources = findings.list(requirement['resources'], resourcesPath);
  resources?.forEach((resource, index) =>
    findings.string(resource, indexPath(resourcesPath, index)),
  );
  const changePath = childPath(path, 'changeRequirement');
  const change = findings.requiredString(
    requirement['changeRequirement'],
    changePath,
  );
  const supported: string[] = Object.values(EvictionChangeRequirement);
  if (change !== undefined && !supported.includes(change)) {
    findings.add(notSupported(changePath, change, supported));
  }
}

function validateRecommenders(value: unknown, findings: Findings): void {
  const path = 'spec.recommenders';
  const recommenders = findings.list(value, path) ?? [];
  if (recommenders.length > 1) {
    findings.add(tooMany(path, recommenders.length, 1));
  }
  recommenders.forEach((recommender, index) => {
    const entryPath = indexPath(path, index);
    const entry = findings.object(recommender, entryPath);
    if (entry)
      findings.requiredString(entry['name'], childPath(entryPath, 'name'));
  });
}
