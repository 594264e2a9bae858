import { readFileSync, writeFileSync } from 'node:fs';
import {
  type FlagsParser,
  type UpstreamFlag,
  upstreamFlagAnswers,
  upstreamFlagMarkdown,
  withUpstreamFlagSection,
} from './upstream-flags.js';

/** The command that rewrites docs/upstream-flags.md from the three apps' parsers. */
export const UPSTREAM_FLAG_DOC_REWRITE =
  'UPDATE_UPSTREAM_FLAGS=1 npx nx run-many -t test -p recommender updater admission-webhook --skip-nx-cache -- --testPathPatterns=upstream-flags';

/**
 * For an app's `upstream-flags.spec.ts`: the problems of its answers and whether its
 * section of `doc` (docs/upstream-flags.md) is stale. With `UPDATE_UPSTREAM_FLAGS=1` in
 * the environment a stale section is rewritten instead (as the README flag tables are).
 */
export function checkUpstreamFlagDoc(
  doc: URL,
  app: string,
  flags: readonly UpstreamFlag[],
  parse: FlagsParser,
): { problems: string[]; stale: string | undefined } {
  const { rows, problems } = upstreamFlagAnswers(flags, parse);
  const text = readFileSync(doc, 'utf8');
  const expected = withUpstreamFlagSection(
    text,
    app,
    upstreamFlagMarkdown(rows),
  );
  if (text === expected) return { problems, stale: undefined };
  if (process.env['UPDATE_UPSTREAM_FLAGS'] === '1') {
    writeFileSync(doc, expected);
    return { problems, stale: undefined };
  }
  return {
    problems,
    stale: `docs/upstream-flags.md's ${app} section is stale: run ${UPSTREAM_FLAG_DOC_REWRITE}`,
  };
}
