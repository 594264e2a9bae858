import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { certificateExpiry } from './certificates.js';
import { errorMessage } from './error-message.js';
import type { ReloadMetrics } from './reload-metrics.js';
import {
  readTlsFiles,
  validateTlsFiles,
  type TlsFilePaths,
  type TlsFiles,
  type TlsMaterial,
  type TlsSettings,
} from './tls-material.js';
import type { ChangeTrigger } from './watch-files.js';

export type ReloadTrigger = ChangeTrigger | 'explicit';

export interface CertificateReloaderOptions {
  readonly paths: TlsFilePaths;
  readonly settings: TlsSettings;
  /** The material in force now (loaded at start). */
  readonly initial: TlsMaterial;
  /** Puts new, already validated options in force (`server.setSecureContext`). */
  readonly install: (options: SecureContextOptions) => void;
  readonly logger: Logger;
  readonly metrics: ReloadMetrics;
  readonly onReload?: (
    loaded: Pick<TlsFiles, 'certPem' | 'keyPem' | 'clientCaPem'>,
  ) => void;
}

export interface CertificateReloader {
  /**
   * Reads the files and installs them when they changed and are valid. Resolves true
   * when installed, false otherwise; never rejects. Attempts run one at a time, in
   * order, so a trigger arriving mid-reload reads the files again afterwards.
   */
  reload(trigger: ReloadTrigger): Promise<boolean>;
  /** Later attempts do nothing. */
  stop(): void;
}

/**
 * Decides what a possible change means: unchanged contents (same digest) do nothing;
 * bad files keep the current material, warn with the reason and count an error; good
 * ones are installed, counted, logged with upstream's `New certificate found,
 * reloading` and handed to `onReload`.
 *
 * An automatic trigger (`watch`, `poll`) that finds the same bad files as the previous
 * failure stays quiet, so an event and a poll for one change warn and count once; an
 * explicit `reload()` always reports.
 */
export function certificateReloader(
  options: CertificateReloaderOptions,
): CertificateReloader {
  const { paths, logger, metrics } = options;
  let current = options.initial;
  let lastFailure: string | undefined;
  let stopped = false;

  const fail = (trigger: ReloadTrigger, key: string, reason: string): false => {
    if (trigger !== 'explicit' && key === lastFailure) return false;
    lastFailure = key;
    metrics.reloaded('error');
    logger.warn(
      { ...paths, trigger, reason },
      'Certificate reload failed, keeping the current certificate',
    );
    return false;
  };

  const attempt = async (trigger: ReloadTrigger): Promise<boolean> => {
    if (stopped) return false;
    let files: TlsFiles;
    try {
      files = await readTlsFiles(paths);
    } catch (error) {
      const reason = errorMessage(error);
      return fail(trigger, `read: ${reason}`, reason);
    }
    if (files.digest === current.digest) {
      lastFailure = undefined;
      return false;
    }
    let next: TlsMaterial;
    try {
      next = validateTlsFiles(paths, files, options.settings);
      if (stopped) return false;
      // Checked with createSecureContext just now, so this does not throw in practice;
      // if it did, the current context would stay.
      options.install(next.contextOptions);
    } catch (error) {
      return fail(trigger, files.digest, errorMessage(error));
    }
    current = next;
    lastFailure = undefined;
    metrics.reloaded('success');
    metrics.expiresAt(certificateExpiry(next.certPem));
    logger.info(
      {
        ...paths,
        trigger,
        subject: next.certificate.subject.replaceAll('\n', ', '),
        notAfter: next.certificate.validToDate.toISOString(),
        fingerprint256: next.certificate.fingerprint256,
      },
      'New certificate found, reloading',
    );
    try {
      options.onReload?.({
        certPem: next.certPem,
        keyPem: next.keyPem,
        clientCaPem: next.clientCaPem,
      });
    } catch (error) {
      logger.error(
        { reason: errorMessage(error) },
        'onReload failed after a certificate reload',
      );
    }
    return true;
  };

  let queue: Promise<boolean> = Promise.resolve(false);
  return {
    reload: (trigger) => {
      const run = queue.then(() => attempt(trigger));
      queue = run.catch((error: unknown) => {
        logger.error(
          { reason: errorMessage(error) },
          'certificate reload failed unexpectedly',
        );
        return false;
      });
      return queue;
    },
    stop: () => {
      stopped = true;
    },
  };
}
