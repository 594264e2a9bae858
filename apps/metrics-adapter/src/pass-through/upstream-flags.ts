import { FlagError } from '@tandem/flags';

/**
 * `--upstream-provider`: the custom.metrics.k8s.io provider the cluster already had, which
 * answers every request Tandem does not serve (ADR 0022). Verified TLS only: the adapter
 * sends its own ServiceAccount token there, so a plain-HTTP or unverified upstream would
 * hand that token to whoever answers. There is deliberately no skip-verify flag: a provider
 * with a self-signed serving certificate is used with that certificate's CA.
 */
export interface UpstreamProvider {
  /** `https://host[:port]`, no path: requests keep their own path and query. */
  url: string;
  /** PEM file of the CA that signed the upstream's serving certificate. */
  caFile: string;
}

export const UPSTREAM_FLAG_OPTIONS = {
  'upstream-provider': { type: 'string', default: '' },
  'upstream-provider-ca-file': { type: 'string', default: '' },
} as const;

export function parseUpstreamProvider(
  url: string,
  caFile: string,
): UpstreamProvider | undefined {
  if (url === '') {
    if (caFile !== '')
      throw new FlagError(
        '--upstream-provider-ca-file is set without --upstream-provider',
      );
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FlagError(
      `--upstream-provider: '${url}' is not a URL (https://<service>.<namespace>.svc[:port])`,
    );
  }
  if (parsed.protocol !== 'https:')
    throw new FlagError(
      `--upstream-provider: '${url}' is not https://: the adapter's ServiceAccount token is sent there, so only verified TLS is allowed`,
    );
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '')
    throw new FlagError(
      `--upstream-provider: '${url}' has a path or query; give the provider's root (https://<service>.<namespace>.svc[:port]), requests keep their own path`,
    );
  if (parsed.username !== '' || parsed.password !== '')
    throw new FlagError(
      `--upstream-provider: '${url}' carries credentials; the adapter authenticates as its ServiceAccount`,
    );
  if (caFile === '')
    throw new FlagError(
      "--upstream-provider needs --upstream-provider-ca-file: the PEM of the CA that signed the provider's serving certificate (its APIService caBundle, base64-decoded)",
    );
  return { url: parsed.origin, caFile };
}
