/**
 * Field errors shaped like apimachinery's `field.Error`, so the admission webhook can turn
 * them into `StatusCause`s ({reason: type, field: path, message}) without translation.
 */

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  /** Where, e.g. `spec.resourcePolicy.containerPolicies[0].minAllowed.cpu`. */
  path: string;
  /** What is wrong, worded as the API server words it (`Required value: …`). */
  message: string;
  type: FieldErrorType;
}

export function required(path: string, detail = ''): FieldError {
  return {
    path,
    type: 'FieldValueRequired',
    message: withDetail('Required value', detail),
  };
}

export function invalid(
  path: string,
  value: unknown,
  detail: string,
): FieldError {
  return {
    path,
    type: 'FieldValueInvalid',
    message: withDetail(`Invalid value: ${describe(value)}`, detail),
  };
}

export function typeInvalid(
  path: string,
  value: unknown,
  expected: string,
): FieldError {
  return {
    path,
    type: 'FieldValueTypeInvalid',
    message: `Invalid value: ${describe(value)}: must be ${expected}`,
  };
}

export function notSupported(
  path: string,
  value: unknown,
  supported: readonly string[],
): FieldError {
  const choices = supported.map((choice) => JSON.stringify(choice)).join(', ');
  return {
    path,
    type: 'FieldValueNotSupported',
    message: `Unsupported value: ${describe(value)}: supported values: ${choices}`,
  };
}

export function forbidden(path: string, detail: string): FieldError {
  return { path, type: 'FieldValueForbidden', message: `Forbidden: ${detail}` };
}

export function tooMany(path: string, actual: number, max: number): FieldError {
  return {
    path,
    type: 'FieldValueTooMany',
    message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  };
}

/** `path.name`, or `path[name]` when the name would be ambiguous after a dot (`nvidia.com/gpu`). */
export function childPath(path: string, name: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return `${path}[${name}]`;
  return path === '' ? name : `${path}.${name}`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

function withDetail(summary: string, detail: string): string {
  return detail === '' ? summary : `${summary}: ${detail}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value) ?? String(value);
}
