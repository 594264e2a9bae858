import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { followFileContent, type FollowedFile } from './follow-file-content.js';
import { capturingLogger } from './log-capture.fixtures.js';
import { sleep, waitFor } from './wait.fixtures.js';

describe('followFileContent', () => {
  let dir: string;
  let file: string;
  let followed: FollowedFile | undefined;
  /** What the API server was last told, in order: `register:` or `patch:` and the content. */
  let calls: string[];
  let failPatches: number;
  const { logger, lines } = capturingLogger();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-follow-'));
    file = join(dir, 'caCert.pem');
    await writeFile(file, 'A');
    calls = [];
    failPatches = 0;
  });

  afterEach(async () => {
    followed?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const follow = () => {
    followed = followFileContent({
      file,
      logger,
      onChange: async (content) => {
        if (failPatches > 0) {
          failPatches -= 1;
          throw new Error('the API server is not answering');
        }
        calls.push(`patch:${content}`);
      },
    });
    return followed;
  };
  const lastCall = () => calls.at(-1);

  it('applies nothing before the first apply, then each new content once', async () => {
    const followed = follow();
    await writeFile(file, 'B');
    await sleep(300);
    expect(calls).toEqual([]);

    await followed.apply(async (content) => {
      calls.push(`register:${content}`);
    });
    await writeFile(file, 'C');
    await waitFor(() => lastCall() === 'patch:C', 'the patch of C');
    await sleep(300);
    expect(calls).toEqual(['register:B', 'patch:C']);
  });

  it('applies a change that lands while apply runs after it, so the registration never ends stale', async () => {
    const followed = follow();
    let release!: () => void;
    const registering = followed.apply(async (content) => {
      // The CA is staged while the registration is in flight.
      await writeFile(file, 'B');
      await new Promise<void>((resolve) => (release = resolve));
      calls.push(`register:${content}`);
    });
    await sleep(300);
    expect(calls).toEqual([]);
    release();
    await registering;
    await waitFor(() => lastCall() === 'patch:B', 'the staged CA patched');
    expect(calls).toEqual(['register:A', 'patch:B']);
  });

  it('keeps a failed apply unapplied, so the retry reads the file again', async () => {
    const followed = follow();
    await expect(
      followed.apply(() => Promise.reject(new Error('forbidden'))),
    ).rejects.toThrow('forbidden');
    await writeFile(file, 'B');
    await sleep(300);
    expect(calls).toEqual([]);
    await followed.apply(async (content) => {
      calls.push(`register:${content}`);
    });
    expect(calls).toEqual(['register:B']);
  });

  it('retries a failed patch with backoff until it lands, with no further change, and logs why', async () => {
    const followed = follow();
    await followed.apply(async (content) => {
      calls.push(`register:${content}`);
    });
    failPatches = 2;
    await writeFile(file, 'B');
    await waitFor(() => lastCall() === 'patch:B', 'the patch retried', 5000);
    expect(
      lines().filter((line) =>
        String(line['msg']).includes('the API server is not answering'),
      ).length,
    ).toBeGreaterThanOrEqual(1);
  });
});
