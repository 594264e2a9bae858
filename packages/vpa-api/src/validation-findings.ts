import {
  invalid,
  required,
  typeInvalid,
  type FieldError,
} from './field-errors.js';
import { isAbsent, isRecord } from './guards.js';
import { parseQuantity, QuantityError, type Quantity } from './quantity.js';

const INT32_RANGE = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Collects errors and warnings while reading an untrusted object. Each reader returns the
 * value when it has the expected JSON type, and otherwise records a FieldError and returns
 * undefined; an absent (`undefined` or `null`) value is simply undefined, never an error.
 */
export class Findings {
  readonly errors: FieldError[] = [];
  readonly warnings: string[] = [];

  add(error: FieldError): void {
    this.errors.push(error);
  }

  warn(warning: string): void {
    this.warnings.push(warning);
  }

  object(value: unknown, path: string): Record<string, unknown> | undefined {
    if (isAbsent(value)) return undefined;
    if (isRecord(value)) return value;
    return this.reject(typeInvalid(path, value, 'an object'));
  }

  list(value: unknown, path: string): unknown[] | undefined {
    if (isAbsent(value)) return undefined;
    if (Array.isArray(value)) return value;
    return this.reject(typeInvalid(path, value, 'a list'));
  }

  string(value: unknown, path: string): string | undefined {
    if (isAbsent(value)) return undefined;
    if (typeof value === 'string') return value;
    return this.reject(typeInvalid(path, value, 'a string'));
  }

  /** Like `string`, but an absent or empty value is a Required error. */
  requiredString(
    value: unknown,
    path: string,
    detail = '',
  ): string | undefined {
    if (isAbsent(value) || value === '')
      return this.reject(required(path, detail));
    return this.string(value, path);
  }

  /** An integer; `int32` fields must also fit in 32 bits, as the CRD schema requires. */
  integer(
    value: unknown,
    path: string,
    width: 'int32' | 'int64',
  ): number | undefined {
    if (isAbsent(value)) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return this.reject(typeInvalid(path, value, 'an integer'));
    }
    if (
      width === 'int32' &&
      (value < INT32_RANGE.min || value > INT32_RANGE.max)
    ) {
      return this.reject(typeInvalid(path, value, 'a 32-bit integer'));
    }
    return value;
  }

  /** A quantity, as text or (int-or-string) as a JSON number. */
  quantity(value: unknown, path: string): Quantity | undefined {
    if (isAbsent(value)) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') {
      return this.reject(
        typeInvalid(path, value, 'a quantity string such as "500m" or "1Gi"'),
      );
    }
    try {
      return parseQuantity(value);
    } catch (error) {
      if (!(error instanceof QuantityError)) throw error;
      return this.reject(invalid(path, value, error.message));
    }
  }

  private reject(error: FieldError): undefined {
    this.add(error);
    return undefined;
  }
}
