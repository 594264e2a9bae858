import type { RequestListener } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from '@tandem/telemetry';
import type { Logger } from 'pino';
import { certificateExpiry } from './certificates.js';
import { certificateReloader } from './certificate-reloader.js';
import { errorMessage } from './error-message.js';
import { reloadMetrics } from './reload-metrics.js';
import {
  loadTlsMaterial,
  type TlsFilePaths,
  type TlsSettings,
} from './tls-material.js';
import { watchFiles } from './watch-files.js';

export interface HttpsServerOptions {
  /** 0 picks a free port (see `HttpsServer.port`). */
  readonly port: number;
  /** Defaults to all interfaces. */
  readonly host?: string;
  /** PEM certificate (chain, leaf first) presented to clients. */
  readonly certFile: string;
  /** PEM private key of that certificate. */
  readonly keyFile: string;
  /**
   * When set: request (but do not require) client certificates, verified against this
   * CA bundle; also reloaded on change. The app reads `req.socket.authorized` /
   * `getPeerCertificate()` to decide.
   */
  readonly clientCaFile?: string;
  /** Default TLSv1.2. */
  readonly minTlsVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list; Node's default when omitted. */
  readonly ciphers?: string;
  /** Usually an express app. */
  readonly app: RequestListener;
  readonly logger: Logger;
  /**
   * When given, registers `tandem_serving_certificate_reloads_total{outcome="success|error"}`
   * and `tandem_serving_certificate_expiry_timestamp_seconds`.
   */
  readonly registry?: Registry;
  /**
   * Called after each successful reload (not for the initial load) with the PEM contents
   * now in force (the webhook patches its caBundle when the CA changed). A throw is
   * logged and otherwise ignored.
   */
  readonly onReload?: (loaded: {
    certPem: string;
    keyPem: string;
    clientCaPem?: string;
  }) => void;
  /** Polling interval for file changes; default 1000 ms. */
  readonly pollIntervalMs?: number;
}

export interface HttpsServer {
  /** The port actually bound. */
  readonly port: number;
  /** e.g. `https://127.0.0.1:8443` (IPv6 in brackets). */
  readonly url: string;
  /**
   * Re-reads the files now. Resolves true when a new context was installed, false when
   * the files are unchanged; on bad files logs a warning, counts `outcome="error"`, keeps
   * the current context and resolves false. Never rejects.
   */
  reload(): Promise<boolean>;
  /** Stops watching, closes the server and its idle connections. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts an HTTPS server whose key, certificate and optional client CA come from files,
 * and follow them when they change (see README: why `setSecureContext`, how changes are
 * detected). Rejects, naming the file, when the files cannot be read or served at
 * start; resolves once listening.
 */
export async function startHttpsServer(
  options: HttpsServerOptions,
): Promise<HttpsServer> {
  const { logger } = options;
  const paths: TlsFilePaths = {
    certFile: options.certFile,
    keyFile: options.keyFile,
    clientCaFile: options.clientCaFile,
  };
  const settings: TlsSettings = {
    minVersion: options.minTlsVersion ?? 'TLSv1.2',
    ciphers: options.ciphers,
  };
  const initial = await loadTlsMaterial(paths, settings);
  const server = createServer(
    {
      ...initial.contextOptions,
      // A client without a certificate still gets through: the app decides what an
      // unauthenticated request may do.
      requestCert: options.clientCaFile !== undefined,
      rejectUnauthorized: false,
    },
    options.app,
  );
  server.on('tlsClientError', (error) =>
    logger.debug({ reason: errorMessage(error) }, 'TLS handshake failed'),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const metrics = reloadMetrics(options.registry);
  metrics.expiresAt(certificateExpiry(initial.certPem));
  const reloader = certificateReloader({
    paths,
    settings,
    initial,
    // Only new handshakes use the new context; established connections keep theirs.
    install: (contextOptions) => server.setSecureContext(contextOptions),
    logger,
    metrics,
    onReload: options.onReload,
  });
  const watch = watchFiles({
    files: [options.certFile, options.keyFile, options.clientCaFile].filter(
      (file): file is string => file !== undefined,
    ),
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    logger,
    onChange: (trigger) => void reloader.reload(trigger),
  });

  const address = server.address() as AddressInfo;
  const host =
    address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    url: `https://${host}:${address.port}`,
    reload: () => reloader.reload('explicit'),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        reloader.stop();
        watch.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
