import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository root: the nearest directory at or above `start` holding nx.json. Works
 * the same for Jest (cwd is the project) and for npm scripts (cwd is the root).
 */
export function findWorkspaceRoot(start: string = process.cwd()): string {
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'nx.json'))) return directory;
    if (dirname(directory) === directory)
      throw new Error(`no nx.json at or above ${start}`);
  }
}
