import { checkUpstreamFlagDoc } from '@tandem/flags';
import { parseFlags } from './flags.js';
import { UPSTREAM_RECOMMENDER_FLAGS } from './upstream-flags.js';

it("answers every upstream recommender flag in docs/upstream-flags.md, from the parser's behaviour", () => {
  expect(
    checkUpstreamFlagDoc(
      new URL('../../../../docs/upstream-flags.md', import.meta.url),
      'recommender',
      UPSTREAM_RECOMMENDER_FLAGS,
      parseFlags,
    ),
  ).toEqual({ problems: [], stale: undefined });
});
