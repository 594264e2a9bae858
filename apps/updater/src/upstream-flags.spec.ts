import { checkUpstreamFlagDoc } from '@tandem/flags';
import { parseFlags } from './flags.js';
import { UPSTREAM_UPDATER_FLAGS } from './upstream-flags.js';

it("answers every upstream updater flag in docs/upstream-flags.md, from the parser's behaviour", () => {
  expect(
    checkUpstreamFlagDoc(
      new URL('../../../docs/upstream-flags.md', import.meta.url),
      'updater',
      UPSTREAM_UPDATER_FLAGS,
      parseFlags,
    ),
  ).toEqual({ problems: [], stale: undefined });
});
