const MAX_VALUE_LENGTH = 80;

/**
 * A value as JSON (strings quoted), cut short: the values described come from untrusted
 * input (pod annotations), and a hostile one must not blow up a log line or an error.
 */
export function describeValue(value: unknown): string {
  let text: string;
  try {
    text =
      value === undefined
        ? 'undefined'
        : (JSON.stringify(value) ?? typeof value);
  } catch {
    text = typeof value;
  }
  return text.length <= MAX_VALUE_LENGTH
    ? text
    : `${text.slice(0, MAX_VALUE_LENGTH - 1)}…`;
}
