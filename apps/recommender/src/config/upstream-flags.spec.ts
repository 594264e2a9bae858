import { readFileSync, writeFileSync } from 'node:fs';
import {
  upstreamFlagAnswers,
  upstreamFlagMarkdown,
  withUpstreamFlagSection,
} from '@tandem/flags';
import { parseFlags } from './flags.js';
import { UPSTREAM_RECOMMENDER_FLAGS } from './upstream-flags.js';

const DOC = new URL('../../../../docs/upstream-flags.md', import.meta.url);
const REWRITE =
  'UPDATE_UPSTREAM_FLAGS=1 npx nx run-many -t test -p recommender updater admission-webhook --skip-nx-cache -- --testPathPatterns=upstream-flags';

describe("upstream's recommender flags", () => {
  const { rows, problems } = upstreamFlagAnswers(
    UPSTREAM_RECOMMENDER_FLAGS,
    parseFlags,
  );

  it('are each accepted with a known default or refused by name with a reason', () => {
    expect(problems).toEqual([]);
  });

  it('are answered in docs/upstream-flags.md', () => {
    const doc = readFileSync(DOC, 'utf8');
    const expected = withUpstreamFlagSection(
      doc,
      'recommender',
      upstreamFlagMarkdown(rows),
    );
    if (doc === expected) return;
    if (process.env['UPDATE_UPSTREAM_FLAGS'] === '1')
      writeFileSync(DOC, expected);
    else throw new Error(`docs/upstream-flags.md is stale: run ${REWRITE}`);
  });
});
