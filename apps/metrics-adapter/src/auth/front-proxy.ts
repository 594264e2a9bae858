import type { RequestHeaderConfig } from './authentication-config.js';
import type { Caller } from './caller.js';

/**
 * Request headers as Node gives them: `req.headers` (repeated headers comma-joined) or,
 * better, `req.headersDistinct` (one array item per header line, so a group name holding
 * a comma is not split).
 */
export type HeaderValues = Readonly<
  Record<string, string | readonly string[] | undefined>
>;

export interface FrontProxyInput {
  /** The TLS layer verified the client certificate against the requestheader CA. */
  socketAuthorized: boolean;
  /** Subject CN of that certificate; undefined when absent or ambiguous (several CNs). */
  peerCommonName: string | undefined;
  headers: HeaderValues;
}

/**
 * The front-proxy step of the Go delegating authenticator, with the reason when it does
 * not apply (for logs: a CN missing from the allowed names is a cluster misconfiguration
 * an operator needs to see). The X-Remote-* headers are believed only from a peer that
 * proved, with a certificate from the requestheader CA and an allowed CN, to be the
 * aggregator; from anyone else they are ignored entirely, since any client can send them.
 */
export function frontProxyIdentity(
  input: FrontProxyInput,
  config: RequestHeaderConfig,
): { caller: Caller } | { reason: string } {
  if (config.requestheaderCaPem === undefined)
    return { reason: 'no requestheader-client-ca-file is configured' };
  if (!input.socketAuthorized)
    return { reason: 'no client certificate verified by the requestheader CA' };
  if (
    config.allowedNames.length > 0 &&
    (input.peerCommonName === undefined ||
      !config.allowedNames.includes(input.peerCommonName))
  )
    return {
      reason: `client certificate CN ${JSON.stringify(input.peerCommonName ?? '')} is not in requestheader-allowed-names ${JSON.stringify(config.allowedNames)}`,
    };
  const headers = lowerCased(input.headers);
  const user = firstValue(headers, config.usernameHeaders);
  if (user === undefined)
    return {
      reason: `verified front-proxy certificate but no ${config.usernameHeaders.join('/') || 'username'} header`,
    };
  const uid = firstValue(headers, config.uidHeaders ?? []);
  return {
    caller: {
      user,
      ...(uid === undefined ? {} : { uid }),
      groups: allValues(headers, config.groupHeaders),
      extra: extraValues(headers, config.extraHeaderPrefixes),
      via: 'front-proxy',
    },
  };
}

/** `frontProxyIdentity` without the reason: the caller, or undefined to try the next method. */
export function authenticateFrontProxy(
  input: FrontProxyInput,
  config: RequestHeaderConfig,
): Caller | undefined {
  const outcome = frontProxyIdentity(input, config);
  return 'caller' in outcome ? outcome.caller : undefined;
}

/**
 * True for the headers the front proxy speaks through. The middleware deletes them once
 * authentication is done, as Go does, so nothing behind it can mistake them for identity.
 */
export function isFrontProxyHeader(
  name: string,
  config: RequestHeaderConfig,
): boolean {
  const lower = name.toLowerCase();
  return (
    [
      ...config.usernameHeaders,
      ...(config.uidHeaders ?? []),
      ...config.groupHeaders,
    ].some((header) => header.toLowerCase() === lower) ||
    config.extraHeaderPrefixes.some((prefix) =>
      lower.startsWith(prefix.toLowerCase()),
    )
  );
}

function lowerCased(headers: HeaderValues): Map<string, readonly string[]> {
  const result = new Map<string, string[]>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const values = typeof value === 'string' ? [value] : value;
    result.set(key, [...(result.get(key) ?? []), ...values]);
  }
  return result;
}

/** Go's `headerValue`: the first value of the first named header that has a non-empty one. */
function firstValue(
  headers: Map<string, readonly string[]>,
  names: readonly string[],
): string | undefined {
  for (const name of names) {
    const value = headers.get(name.toLowerCase())?.[0];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** Go's `allHeaderValues`: every non-empty value of every named header, in order. */
function allValues(
  headers: Map<string, readonly string[]>,
  names: readonly string[],
): string[] {
  return names.flatMap((name) =>
    (headers.get(name.toLowerCase()) ?? []).filter((value) => value !== ''),
  );
}

/**
 * Go's `newExtra`: every header under a prefix, keyed by the rest of its name, lower-cased
 * then %-unescaped (a key like `scopes.example.com%2fteam` cannot be a header name as is).
 */
function extraValues(
  headers: Map<string, readonly string[]>,
  prefixes: readonly string[],
): Record<string, string[]> {
  // A Map, then fromEntries: a key such as `__proto__` must stay a plain key.
  const extra = new Map<string, string[]>();
  for (const prefix of prefixes) {
    const lowerPrefix = prefix.toLowerCase();
    for (const [name, values] of headers) {
      if (!name.startsWith(lowerPrefix) || name === lowerPrefix) continue;
      const key = unescapeExtraKey(name.slice(lowerPrefix.length));
      extra.set(key, [...(extra.get(key) ?? []), ...values]);
    }
  }
  return Object.fromEntries(extra);
}

/** Like Go's `url.PathUnescape`; a malformed escape keeps the key as it came. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
