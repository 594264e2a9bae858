import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './app-process.ts';

/** Where screenshots go: CI keeps the folder as an artefact; git ignores it. */
export const ARTIFACTS_DIR = join(REPO_ROOT, 'e2e', 'artifacts');

/**
 * The system's Chromium (Debian's `chromium`, installed by .ci/run), or the one
 * TANDEM_CHROMIUM names: nothing is downloaded at run time.
 */
export function chromiumPath(env = process.env): string {
  const named = env['TANDEM_CHROMIUM'];
  if (named !== undefined && named !== '') return named;
  for (const dir of (env['PATH'] ?? '').split(delimiter))
    for (const name of ['chromium', 'chromium-browser']) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  throw new Error(
    "no Chromium found: install Debian's chromium (apt-get install chromium) or set TANDEM_CHROMIUM",
  );
}

/** A headless Chromium; close it when done. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/** The path of a screenshot named `name`, its folder made. */
export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, `${name}.png`);
}
