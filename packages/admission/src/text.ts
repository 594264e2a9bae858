/**
 * Text for messages and warnings built from untrusted input. Values are cut short so a
 * hostile review cannot blow up a log line or the warnings the API server relays to a user.
 */

const MAX_MESSAGE_LENGTH = 1000;

/** The message of anything thrown; never throws itself (`String()` can, on odd objects). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return shorten(error.message, MAX_MESSAGE_LENGTH);
  try {
    return shorten(String(error), MAX_MESSAGE_LENGTH);
  } catch {
    return 'unknown error';
  }
}

/** A message or warning capped at a length any log line or API response can carry. */
export function capMessage(text: string): string {
  return shorten(text, MAX_MESSAGE_LENGTH);
}

function shorten(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}
