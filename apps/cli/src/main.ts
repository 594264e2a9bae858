import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { MissingDeclaredSizeError } from '@tandem/replay';
import {
  HELP_TEXT,
  parseCommandLine,
  UsageError,
  type Command,
} from './args.js';
import { terminalProgress } from './progress.js';
import { readUsageFile } from './read-usage-file.js';
import { recommendAll } from './recommend.js';
import { replay } from './replay-command.js';
import { renderStrategyList } from './render-strategies.js';
import { renderJson, renderTable } from './render.js';
import { syntheticUsage } from './synthetic-usage.js';
import { UsageCsvError } from './usage-csv.js';

/** Runs the command line and returns the process exit code (0 ok, 1 bad input, 2 misuse). */
export async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`tandem: ${error.message}\n\n${HELP_TEXT}`);
    return 2;
  }
  switch (command.kind) {
    case 'help':
      process.stdout.write(HELP_TEXT);
      return 0;
    case 'version':
      process.stdout.write(`${await packageVersion()}\n`);
      return 0;
    case 'recommend':
      return reportingInputErrors(() => recommend(command));
    case 'synth':
      await writeAll(syntheticUsage(command));
      return 0;
    case 'list-strategies':
      process.stdout.write(renderStrategyList());
      return 0;
    case 'replay':
      return reportingInputErrors(() => replay(command));
  }
}

async function recommend(
  command: Extract<Command, { kind: 'recommend' }>,
): Promise<void> {
  const progress = command.progress
    ? terminalProgress(`reading ${command.usageFile}`)
    : undefined;
  const series = await readUsageFile(
    command.usageFile,
    progress?.update,
  ).finally(() => progress?.done());
  const recommendations = recommendAll(series);
  process.stdout.write(
    command.output === 'json'
      ? renderJson(recommendations)
      : renderTable(recommendations),
  );
}

/**
 * Runs a command that reads files: a malformed file, one that cannot be read, or a replay
 * input that does not fit together is a message on stderr and exit code 1.
 */
async function reportingInputErrors(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (error) {
    if (error instanceof UsageCsvError) {
      process.stderr.write(`tandem: ${error.path}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof MissingDeclaredSizeError) {
      process.stderr.write(`tandem: ${error.message}\n`);
      return 1;
    }
    if (isFileSystemError(error)) {
      process.stderr.write(
        `tandem: cannot read ${error.path}: ${error.message}\n`,
      );
      return 1;
    }
    throw error;
  }
}

/** Writes each chunk to standard output, waiting whenever the pipe is full. */
async function writeAll(chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks)
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string'
  );
}

async function packageVersion(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(new URL('../package.json', import.meta.url), 'utf8'),
  ) as {
    version: string;
  };
  return manifest.version;
}
