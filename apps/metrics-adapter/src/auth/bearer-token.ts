/**
 * The token of an `Authorization: Bearer <token>` header, parsed as Go's bearer-token
 * authenticator does (scheme case-insensitive, one space); undefined for anything else.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const [scheme, token] = (header ?? '').trim().split(' ', 2);
  if (scheme?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token;
}
