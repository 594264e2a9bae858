/** Where kube-apiserver publishes how extension API servers authenticate its requests. */
export const AUTHENTICATION_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
} as const;

/** The ConfigMap's data, parsed. Header names are kept as written (matched case-insensitively). */
export interface RequestHeaderConfig {
  /** `client-ca-file`: CA of ordinary client certificates (not used to authenticate here). */
  clientCaPem: string | undefined;
  /** `requestheader-client-ca-file`: CA of the aggregator's front-proxy client certificate. */
  requestheaderCaPem: string | undefined;
  /** CNs the front-proxy certificate may have; empty = any certificate signed by that CA. */
  allowedNames: string[];
  usernameHeaders: string[];
  /**
   * `requestheader-uid-headers` (RemoteRequestHeaderUID, beta and on by default since
   * Kubernetes 1.33); absent on older clusters.
   */
  uidHeaders?: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

const LIST_KEYS = {
  allowedNames: 'requestheader-allowed-names',
  usernameHeaders: 'requestheader-username-headers',
  uidHeaders: 'requestheader-uid-headers',
  groupHeaders: 'requestheader-group-headers',
  extraHeaderPrefixes: 'requestheader-extra-headers-prefix',
} as const;

/**
 * Parses the ConfigMap's data the way the Go delegating authenticator does: the list
 * values are JSON arrays of strings as kube-apiserver writes them, and a missing or empty
 * value (or JSON `null`, what Go writes for an unset list) means an empty list. Returns an
 * Error naming the key when a value is not such an array, so the caller keeps the last
 * good configuration instead of trusting a half-read one.
 */
export function parseAuthenticationConfig(
  data: Record<string, string> | undefined,
): RequestHeaderConfig | Error {
  const where = `${AUTHENTICATION_CONFIGMAP.namespace}/${AUTHENTICATION_CONFIGMAP.name}`;
  if (data === undefined) return new Error(`ConfigMap ${where} has no data`);
  const lists: Partial<Record<keyof typeof LIST_KEYS, string[]>> = {};
  for (const [field, key] of Object.entries(LIST_KEYS) as [
    keyof typeof LIST_KEYS,
    string,
  ][]) {
    const parsed = parseStringList(data[key]);
    if (parsed instanceof Error)
      return new Error(`ConfigMap ${where}: ${key}: ${parsed.message}`);
    lists[field] = parsed;
  }
  return {
    clientCaPem: pem(data['client-ca-file']),
    requestheaderCaPem: pem(data['requestheader-client-ca-file']),
    allowedNames: lists.allowedNames ?? [],
    usernameHeaders: lists.usernameHeaders ?? [],
    uidHeaders: lists.uidHeaders ?? [],
    groupHeaders: lists.groupHeaders ?? [],
    extraHeaderPrefixes: lists.extraHeaderPrefixes ?? [],
  };
}

function pem(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parseStringList(value: string | undefined): string[] | Error {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    return new Error(
      `not a JSON array of strings (${(error as Error).message}): ${preview(value)}`,
    );
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed))
    return new Error(`not a JSON array of strings: ${preview(value)}`);
  const bad = parsed.findIndex((item) => typeof item !== 'string');
  if (bad !== -1)
    return new Error(
      `item ${bad} is ${JSON.stringify(parsed[bad])}, not a string`,
    );
  return parsed as string[];
}

function preview(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
