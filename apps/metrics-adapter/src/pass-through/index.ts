import { readFile } from 'node:fs/promises';
import type express from 'express';
import type { Logger } from 'pino';
import { describeError, type KubeConnection } from '@tandem/kube';
import { passThroughRoutes } from './pass-through-routes.js';
import { connectionCredentials, upstreamGet } from './upstream-client.js';
import { upstreamDiscovery } from './upstream-discovery.js';
import type { UpstreamProvider } from './upstream-flags.js';

/**
 * The pass-through to `--upstream-provider` as the adapter mounts it (ADR 0022); fails at
 * start when the CA file cannot be read, since every forwarded read would fail anyway.
 */
export async function passThrough(options: {
  provider: UpstreamProvider;
  connection: KubeConnection;
  logger: Logger;
  observe: (kind: string, code: number, seconds: number) => void;
}): Promise<express.Router> {
  const { provider, logger } = options;
  let caPem: string;
  try {
    caPem = await readFile(provider.caFile, 'utf8');
  } catch (error) {
    throw new Error(
      `--upstream-provider-ca-file: cannot read ${provider.caFile}: ${describeError(error)}`,
    );
  }
  if (!caPem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(
      `--upstream-provider-ca-file: ${provider.caFile} holds no PEM certificate`,
    );
  const get = upstreamGet({
    url: provider.url,
    caPem,
    credentials: connectionCredentials(options.connection),
  });
  logger.info(
    { upstream: provider.url },
    'passing custom metrics Tandem does not serve to the upstream provider',
  );
  return passThroughRoutes({
    upstreamUrl: provider.url,
    get,
    discovery: upstreamDiscovery({
      get,
      now: () => Date.now(),
      onError: (message) => logger.warn({ upstream: provider.url }, message),
    }),
    observe: options.observe,
    logger,
  });
}
