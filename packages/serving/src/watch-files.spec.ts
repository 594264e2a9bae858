import {
  mkdir,
  mkdtemp,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturingLogger } from './log-capture.fixtures.js';
import { sleep, waitFor } from './wait.fixtures.js';
import {
  watchFiles,
  type ChangeTrigger,
  type FileWatch,
} from './watch-files.js';

describe('watchFiles', () => {
  let dir: string;
  let watch: FileWatch | undefined;
  let triggers: ChangeTrigger[];
  const { logger } = capturingLogger();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'serving-watch-'));
    triggers = [];
  });

  afterEach(async () => {
    watch?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = (
    files: string[],
    options: {
      pollIntervalMs: number;
      useFsWatch: boolean;
      debounceMs?: number;
    },
  ) => {
    watch = watchFiles({
      files,
      logger,
      onChange: (trigger) => triggers.push(trigger),
      ...options,
    });
  };

  /** A Kubernetes Secret volume: `name -> ..data/name`, `..data -> ..<timestamp>`. */
  async function secretVolume(version: string, files: Record<string, string>) {
    const target = join(dir, `..2026_01_01_00_00_0${version}`);
    await mkdir(target);
    for (const [name, contents] of Object.entries(files)) {
      await writeFile(join(target, name), contents);
    }
    // The kubelet's swap: a new symlink renamed over `..data`, atomically.
    await symlink(target, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  }

  describe('polling alone', () => {
    it('reports on the first poll, then only when a file changes in place', async () => {
      const file = join(dir, 'serverCert.pem');
      await writeFile(file, 'one');
      start([file], { pollIntervalMs: 20, useFsWatch: false });
      await waitFor(() => triggers.length === 1, 'the first poll');
      await sleep(100);
      expect(triggers).toEqual(['poll']);

      await writeFile(file, 'two, longer');
      await waitFor(() => triggers.length === 2, 'the in-place write');
      expect(triggers).toEqual(['poll', 'poll']);
    });

    it('sees a Kubernetes ..data symlink swap', async () => {
      await secretVolume('1', { 'serverCert.pem': 'one' });
      const file = join(dir, 'serverCert.pem');
      await symlink(join('..data', 'serverCert.pem'), file);
      start([file], { pollIntervalMs: 20, useFsWatch: false });
      await waitFor(() => triggers.length === 1, 'the first poll');

      // Same size, and possibly the same mtime: the inode tells them apart.
      await secretVolume('2', { 'serverCert.pem': 'two' });
      await waitFor(() => triggers.length === 2, 'the swap');
    });

    it('reports a file that disappears and comes back', async () => {
      const file = join(dir, 'serverKey.pem');
      await writeFile(file, 'key');
      start([file], { pollIntervalMs: 20, useFsWatch: false });
      await waitFor(() => triggers.length === 1, 'the first poll');
      await rm(file);
      await waitFor(() => triggers.length === 2, 'the removal');
      await writeFile(file, 'key');
      await waitFor(() => triggers.length === 3, 'the file coming back');
    });
  });

  describe('with fs.watch', () => {
    it('reports a write through a directory event, debounced, long before a poll', async () => {
      const file = join(dir, 'serverCert.pem');
      await writeFile(file, 'one');
      start([file], {
        pollIntervalMs: 60_000,
        useFsWatch: true,
        debounceMs: 250,
      });
      await sleep(50);
      await writeFile(file, 'two');
      await writeFile(file, 'three');
      await writeFile(join(dir, 'serverKey.pem'), 'key');
      await waitFor(() => triggers.length > 0, 'a directory event');
      await sleep(400);
      expect(triggers).toEqual(['watch']);
    });

    it('reports a ..data swap through a directory event', async () => {
      await secretVolume('1', { 'serverCert.pem': 'one' });
      const file = join(dir, 'serverCert.pem');
      await symlink(join('..data', 'serverCert.pem'), file);
      start([file], { pollIntervalMs: 60_000, useFsWatch: true });
      await sleep(50);
      await secretVolume('2', { 'serverCert.pem': 'two' });
      await waitFor(() => triggers.includes('watch'), 'a directory event');
    });

    it('stops reporting once closed', async () => {
      const file = join(dir, 'serverCert.pem');
      await writeFile(file, 'one');
      start([file], { pollIntervalMs: 20, useFsWatch: true });
      await waitFor(() => triggers.length > 0, 'the first poll');
      watch?.close();
      watch?.close();
      const seen = triggers.length;
      await writeFile(file, 'two');
      await sleep(200);
      expect(triggers).toHaveLength(seen);
    });

    it('falls back to polling when a directory cannot be watched', async () => {
      const capture = capturingLogger();
      const missing = join(dir, 'not-yet', 'serverCert.pem');
      watch = watchFiles({
        files: [missing],
        pollIntervalMs: 20,
        logger: capture.logger,
        onChange: (trigger) => triggers.push(trigger),
      });
      expect(capture.lines()).toEqual([
        expect.objectContaining({
          level: 'warn',
          msg: 'cannot watch a certificate directory; relying on polling',
          directory: join(dir, 'not-yet'),
        }),
      ]);
      await waitFor(() => triggers.length === 1, 'the first poll');
      await mkdir(join(dir, 'not-yet'));
      await writeFile(missing, 'one');
      await waitFor(() => triggers.length === 2, 'the poll to see the file');
    });
  });
});
