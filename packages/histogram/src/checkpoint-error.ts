/**
 * A checkpoint (or part of one) that cannot be loaded. Loading never guesses: a value that
 * would turn into a wrong number is refused with the field it came from.
 */
export class CheckpointError extends Error {
  /** Dotted path of the offending field inside the checkpoint; empty for the whole object. */
  readonly field: string;
  /** What is wrong with it, without the field path. */
  readonly problem: string;

  constructor(field: string, problem: string) {
    super(field === '' ? problem : `${field}: ${problem}`);
    this.name = 'CheckpointError';
    this.field = field;
    this.problem = problem;
  }

  /** The same problem, reported from the enclosing object (`cpuHistogram` + `totalWeight`). */
  within(parentField: string): CheckpointError {
    const field =
      this.field === '' ? parentField : `${parentField}.${this.field}`;
    return new CheckpointError(field, this.problem);
  }
}

/** A short, unambiguous rendering of an unexpected JSON value for error messages. */
export function describeJsonValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
