/** The credentials flags, with the token file already read. */
export interface PrometheusCredentials {
  /** A bearer token (e.g. `--prometheus-bearer-token`, or the trimmed content of a token file). */
  readonly bearerToken: string;
  /** `--username` / `--password`. */
  readonly username: string;
  readonly password: string;
}

/**
 * The Authorization header upstream sends (§4.4): a bearer token first, else basic auth from
 * the flags when both are set, else from PROMETHEUS_USERNAME/PROMETHEUS_PASSWORD when both are
 * set, else none.
 */
export function authorizationHeader(
  credentials: PrometheusCredentials,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (credentials.bearerToken !== '')
    return `Bearer ${credentials.bearerToken}`;
  const basic = (username = '', password = '') =>
    username !== '' && password !== ''
      ? `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
      : undefined;
  return (
    basic(credentials.username, credentials.password) ??
    basic(env['PROMETHEUS_USERNAME'], env['PROMETHEUS_PASSWORD'])
  );
}
