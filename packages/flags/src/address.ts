import { FlagError } from './flag-values.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * A Go-style listen address (`:8942`, `127.0.0.1:0`, `[::1]:8000`) as upstream's `--address`
 * flags take it; an empty host means all interfaces.
 */
export function parseAddress(text: string, flag: string): ListenAddress {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port > 65535)
    throw new FlagError(`--${flag}: '${text}' is not host:port (e.g. :8942)`);
  const host = (match[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}
