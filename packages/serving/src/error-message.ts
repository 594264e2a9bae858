/** The message of an Error, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  // Not `instanceof Error`: errors from another realm (vm contexts, Jest) fail it.
  const message =
    typeof error === 'object' && error !== null
      ? (error as { message?: unknown }).message
      : undefined;
  return typeof message === 'string' ? message : String(error);
}
