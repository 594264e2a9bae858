/**
 * Kubernetes `metav1.LabelSelector`: compiled once, then matched against label sets, with
 * the same validation the API server applies to label keys, values and operators.
 */

import { isRecord } from './guards.js';

export const LabelSelectorOperator = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
} as const;
export type LabelSelectorOperator =
  (typeof LabelSelectorOperator)[keyof typeof LabelSelectorOperator];

export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

export interface LabelSelectorMatcher {
  matches(labels: Labels | undefined): boolean;
}

/** Thrown for a selector the API server would reject; `path` locates the offending part. */
export class SelectorError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`invalid label selector: ${path}: ${reason}`);
    this.name = 'SelectorError';
  }
}

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME_LENGTH = 63;
const MAX_PREFIX_LENGTH = 253;

const OPERATORS: readonly string[] = Object.values(LabelSelectorOperator);

type Requirement = (labels: Labels) => boolean;

/**
 * Compiles a selector. Every listed label and expression must hold (AND); an empty selector
 * matches everything, while a missing (`null`/`undefined`) selector matches nothing, as
 * `metav1.LabelSelectorAsSelector` does. Throws `SelectorError` for an invalid selector.
 */
export function compileLabelSelector(
  selector: LabelSelector | null | undefined,
): LabelSelectorMatcher {
  if (selector === null || selector === undefined)
    return { matches: () => false };
  if (!isRecord(selector))
    throw new SelectorError('<selector>', 'must be an object');
  const requirements = [
    ...compileMatchLabels(selector.matchLabels),
    ...compileMatchExpressions(selector.matchExpressions),
  ];
  return {
    // A loop, not `every` with a closure made per call: a cycle tests every selector.
    matches: (labels) => {
      const set = labels ?? {};
      for (const requirement of requirements)
        if (!requirement(set)) return false;
      return true;
    },
  };
}

function compileMatchLabels(matchLabels: unknown): Requirement[] {
  if (matchLabels === undefined || matchLabels === null) return [];
  if (!isRecord(matchLabels))
    throw new SelectorError('matchLabels', 'must be an object');
  return Object.entries(matchLabels).map(([key, value]) => {
    // Spelled out only for an error: a recommender's first cycle compiles every VPA's.
    const path = () => `matchLabels[${JSON.stringify(key)}]`;
    checkKey(key, path);
    checkValue(value, path);
    return (labels) => Object.hasOwn(labels, key) && labels[key] === value;
  });
}

function compileMatchExpressions(matchExpressions: unknown): Requirement[] {
  if (matchExpressions === undefined || matchExpressions === null) return [];
  if (!Array.isArray(matchExpressions)) {
    throw new SelectorError('matchExpressions', 'must be a list');
  }
  return matchExpressions.map((expression: unknown, index) =>
    compileExpression(expression, `matchExpressions[${index}]`),
  );
}

function compileExpression(expression: unknown, path: string): Requirement {
  if (!isRecord(expression)) throw new SelectorError(path, 'must be an object');
  const { key, operator } = expression;
  const values = expression['values'] ?? [];
  checkKey(key, () => `${path}.key`);
  if (typeof operator !== 'string' || !OPERATORS.includes(operator)) {
    throw new SelectorError(
      `${path}.operator`,
      `unknown operator ${JSON.stringify(operator)} (expected ${OPERATORS.join(', ')})`,
    );
  }
  if (!Array.isArray(values))
    throw new SelectorError(`${path}.values`, 'must be a list');
  values.forEach((value: unknown, index) =>
    checkValue(value, () => `${path}.values[${index}]`),
  );
  const allowed = new Set(values as string[]);
  switch (operator) {
    case LabelSelectorOperator.In:
    case LabelSelectorOperator.NotIn: {
      if (allowed.size === 0) {
        throw new SelectorError(
          `${path}.values`,
          `must be non-empty for operator ${operator}`,
        );
      }
      const isIn = operator === LabelSelectorOperator.In;
      // A label that is absent is "not in" any set.
      return (labels) =>
        (Object.hasOwn(labels, key) && allowed.has(labels[key] as string)) ===
        isIn;
    }
    default: {
      if (allowed.size > 0) {
        throw new SelectorError(
          `${path}.values`,
          `must be empty for operator ${operator}`,
        );
      }
      const mustExist = operator === LabelSelectorOperator.Exists;
      return (labels) => Object.hasOwn(labels, key) === mustExist;
    }
  }
}

/** Where in the selector a check is, worked out only when it fails. */
type Path = () => string;

/** A qualified name: `[prefix/]name`, prefix a DNS subdomain, name up to 63 characters. */
function checkKey(key: unknown, path: Path): asserts key is string {
  if (typeof key !== 'string')
    throw new SelectorError(path(), 'label key must be a string');
  const parts = key.split('/');
  if (parts.length > 2)
    throw keyError(path, key, ' may contain at most one "/"');
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined) {
    if (prefix === '') throw keyError(path, key, ' has an empty prefix');
    if (prefix.length > MAX_PREFIX_LENGTH || !DNS_SUBDOMAIN.test(prefix)) {
      throw keyError(
        path,
        key,
        `: prefix must be a DNS subdomain (lower-case alphanumerics, '-' and '.', at most ${MAX_PREFIX_LENGTH} characters)`,
      );
    }
  }
  if (name === undefined || name === '')
    throw keyError(path, key, ' has an empty name');
  if (name.length > MAX_NAME_LENGTH || !NAME_PART.test(name)) {
    throw keyError(
      path,
      key,
      `: name must be at most ${MAX_NAME_LENGTH} characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`,
    );
  }
}

function keyError(path: Path, key: string, reason: string): SelectorError {
  return new SelectorError(path(), `label key ${JSON.stringify(key)}${reason}`);
}

/** A label value: empty, or up to 63 characters shaped like a key's name part. */
function checkValue(value: unknown, path: Path): void {
  if (typeof value !== 'string')
    throw new SelectorError(path(), 'label value must be a string');
  if (
    value !== '' &&
    (value.length > MAX_NAME_LENGTH || !NAME_PART.test(value))
  ) {
    throw new SelectorError(
      path(),
      `label value ${JSON.stringify(value)} must be empty or at most ${MAX_NAME_LENGTH} characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`,
    );
  }
}
